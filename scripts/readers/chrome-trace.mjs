// Reads a Chrome trace with Chrome DevTools' own trace engine (the Performance panel's parser,
// published as @paulirish/trace_engine; scripts/install-profilers.sh installs it) and prints what
// it found, as JSON: for each thread its name, and for each event name the calls (events) and
// their total duration in microseconds. An independent reader of highrise's Chrome exports.
//
//     node scripts/readers/chrome-trace.mjs TRACE.json
import fs from 'node:fs';
import path from 'node:path';

const engine = path.join(process.env.HOME, '.cache/highrise/trace-engine/node_modules/@paulirish/trace_engine/models/trace/trace.js');
const Trace = await import(engine);
// The engine measures layout with DOMRect, which Node lacks.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) { Object.assign(this, {x, y, width, height}); }
};
const json = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents ?? json);
const threads = [];
for (const process of model.parsedTrace().data.Renderer.processes.values()) {
  for (const thread of process.threads.values()) {
    const calls = {};
    for (const entry of thread.entries) {
      const seen = (calls[entry.name] ??= {calls: 0, total_us: 0});
      seen.calls += 1;
      seen.total_us += entry.dur ?? 0;
    }
    threads.push({name: thread.name, calls});
  }
}
console.log(JSON.stringify({threads}));
