// The shop of ../otlp-python/shop.py as a Node service on the OpenTelemetry JS SDK only (no
// highrise agent): each request is a trace of async spans with `code.function.name`. Needs
// @opentelemetry/sdk-trace-node, @opentelemetry/resources and an OTLP trace exporter
// (exporter-trace-otlp-proto for HTTP/protobuf, exporter-trace-otlp-http for OTLP/JSON,
// exporter-trace-otlp-grpc for gRPC), found
// through NODE_PATH. Prints, as JSON, how many spans of each function it made.
//
//   node shop.js --protocol http --endpoint http://127.0.0.1:4318 --seconds 10
'use strict';

const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const protocol = option('protocol', 'http');
const token = option('token', '');
const headers = token ? { authorization: `Bearer ${token}` } : {};
let exporter;
if (protocol === 'grpc') {
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-grpc');
  const grpc = require('@grpc/grpc-js');
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  exporter = new OTLPTraceExporter({ url: option('endpoint', 'http://127.0.0.1:4317'), metadata });
} else {
  // 'http': protobuf bodies; 'json': OTLP/JSON, what exporter-trace-otlp-http sends.
  const { OTLPTraceExporter } = require(
    protocol === 'json' ? '@opentelemetry/exporter-trace-otlp-http' : '@opentelemetry/exporter-trace-otlp-proto',
  );
  const base = option('endpoint', 'http://127.0.0.1:4318').replace(/\/$/, '');
  exporter = new OTLPTraceExporter({ url: `${base}/v1/traces`, headers });
}

const attributes = {
  'service.name': option('service', 'shop-node'),
  'service.version': option('version', '1.0'),
};
if (option('host', '')) attributes['host.name'] = option('host', '');
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes(attributes),
  spanProcessors: [
    new BatchSpanProcessor(exporter, {
      scheduledDelayMillis: Number(option('export-delay-ms', '200')),
    }),
  ],
});
provider.register();
const tracer = provider.getTracer('shop');

const made = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function traced(qualifiedName, body) {
  const shortName = qualifiedName.split('.').slice(-2).join('.');
  return (...args) =>
    tracer.startActiveSpan(
      shortName,
      { attributes: { 'code.function.name': qualifiedName } },
      async (span) => {
        made[qualifiedName] = (made[qualifiedName] || 0) + 1;
        try {
          return await body(...args);
        } finally {
          span.end();
        }
      },
    );
}

const borrow = traced('shop.db.Pool.borrow', () => sleep(4));
const query = traced('shop.db.Repository.query', async (n) => {
  await borrow();
  await sleep(20 + (n % 5));
});
const get = traced('shop.cache.Cache.get', async (n) => {
  await sleep(3);
  return n % 3 === 0;
});
const handle = traced('shop.api.Handler.handle', async (n) => {
  if (!(await get(n))) await query(n);
  await sleep(10);
});

async function main() {
  const seconds = Number(option('seconds', '10'));
  const workers = Number(option('threads', '2'));
  const deadline = Date.now() + seconds * 1000;
  const serve = async (worker) => {
    for (let n = worker; Date.now() < deadline; n += workers) {
      await handle(n);
      await sleep(20);
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, i) => serve(i)));
  await provider.shutdown();
  console.log(JSON.stringify({ service: attributes['service.name'], spans: made }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
