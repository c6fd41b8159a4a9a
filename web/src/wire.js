// Reads highrise's binary messages (crates/highrise-web/src/wire.rs says the layout).

export const PLAN = 1;
export const HEIGHTS = 2;
export const DIFF = 3;
export const DIFF_SESSION = 0xffffffff;
export const ALL = 1;
export const IDLE = 255;

const decoder = new TextDecoder();

function header(view) {
  return { kind: view.getUint8(0), flags: view.getUint8(1), session: view.getUint32(4, true) };
}

function readText(view, bytes, at) {
  const length = view.getUint32(at, true);
  const text = decoder.decode(bytes.subarray(at + 4, at + 4 + length));
  return { lines: length === 0 ? [] : text.split('\n'), next: at + 4 + length };
}

// One message: { kind, session, ... } with typed arrays for the rectangles and towers.
export function read(buffer) {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  const head = header(view);
  if (head.kind === PLAN) {
    const generation = view.getUint32(8, true);
    const d = view.getUint32(12, true);
    const b = view.getUint32(16, true);
    const n = view.getUint32(20, true);
    const fullHeightWu = view.getFloat32(24, true);
    let at = 28;
    const districts = new Float32Array(d * 6);
    const depths = new Uint32Array(d);
    for (let i = 0; i < d; i++) {
      for (let k = 0; k < 6; k++) districts[i * 6 + k] = view.getFloat32(at + k * 4, true);
      depths[i] = view.getUint32(at + 24, true);
      at += 28;
    }
    const blocks = new Float32Array(b * 6);
    for (let i = 0; i < b * 6; i++) blocks[i] = view.getFloat32(at + i * 4, true);
    at += b * 24;
    const buildings = new Float32Array(n * 5);
    const methodIds = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 5; k++) buildings[i * 5 + k] = view.getFloat32(at + k * 4, true);
      methodIds[i] = view.getUint32(at + 20, true);
      at += 24;
    }
    const names = readText(view, bytes, at);
    const packages = readText(view, bytes, names.next);
    const classes = readText(view, bytes, packages.next);
    return {
      ...head, generation, fullHeightWu, districts, depths, blocks, buildings, methodIds,
      names: names.lines, packages: packages.lines, classes: classes.lines, byteLength: classes.next,
    };
  }
  if (head.kind === HEIGHTS) {
    const relativeFull = view.getFloat32(8, true);
    const timeS = view.getFloat64(12, true);
    const count = view.getUint32(20, true);
    const index = new Uint32Array(count);
    const elevation = new Float32Array(count);
    const heat = new Uint8Array(count);
    const threads = new Uint8Array(count);
    let at = 24;
    for (let i = 0; i < count; i++) {
      index[i] = view.getUint32(at, true);
      elevation[i] = view.getUint16(at + 4, true) / 65535;
      heat[i] = view.getUint8(at + 6);
      threads[i] = view.getUint8(at + 7);
      at += 8;
    }
    return { ...head, all: (head.flags & ALL) !== 0, relativeFull, timeS, index, elevation, heat, threads };
  }
  if (head.kind === DIFF) {
    const generation = view.getUint32(8, true);
    const fullScale = view.getFloat32(12, true);
    const count = view.getUint32(16, true);
    const colour = new Uint8Array(count);
    const step = new Uint8Array(count);
    const height = new Uint16Array(count);
    const a = new Float32Array(count);
    const b = new Float32Array(count);
    let at = 20;
    const share = (q) => (q === 0xffff ? NaN : q / 65534);
    for (let i = 0; i < count; i++) {
      colour[i] = view.getUint8(at);
      step[i] = view.getUint8(at + 1);
      height[i] = view.getUint16(at + 2, true);
      a[i] = share(view.getUint16(at + 4, true));
      b[i] = share(view.getUint16(at + 6, true));
      at += 8;
    }
    return { ...head, generation, fullScale, colour, step, height, a, b };
  }
  return head;
}

export function base64ToBuffer(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}
