// highrise in a browser: the live cities of a `highrise serve --web` (or the window's --web),
// or a recording's city over time when the page carries one (`report --export html`).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { read, base64ToBuffer, PLAN, HEIGHTS, DIFF, DIFF_SESSION } from './wire.js';
import { City, CITY_GAP_WU } from './city.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get('token');
const dataElement = $('highrise-data');
const recording = dataElement ? JSON.parse(dataElement.textContent) : null;

// Test and tool hooks: what the page shows, for the browser tests (scripts/test-web.sh).
const state = {
  ready: false, look: null, sessions: [], cities: new Map(), selected: null, scale: 'auto',
  messages: 0, bytes: 0, firstCityMs: null, frameMs: [], partsMs: [], tooltip: [], recording: !!recording,
};
window.highrise = state;

// `?antialias=0` for software rendering (multisampling costs it most).
const renderer = new THREE.WebGLRenderer({ antialias: params.get('antialias') !== '0', canvas: $('city') });
renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x15171c);
scene.add(new THREE.HemisphereLight(0xdde4ff, 0x30302a, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(0.5, 1.0, 0.3);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 20000);
camera.position.set(40, 40, 40);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = true;
controls.screenSpacePanning = false;
controls.maxPolarAngle = Math.PI * 0.49;

function resize() {
  const w = window.innerWidth, h = window.innerHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// ---- cities ---------------------------------------------------------------------------------

function cityOf(session) {
  let city = state.cities.get(session);
  if (!city) {
    city = new City(scene, state.look, session);
    state.cities.set(session, city);
  }
  return city;
}

// Cities side by side along X, in session order.
function arrange() {
  let x = 0;
  for (const session of [...state.cities.keys()].sort((a, b) => a - b)) {
    const city = state.cities.get(session);
    if (!city.plan) continue;
    city.setOffset(x - city.bounds.minX);
    x += city.width() + CITY_GAP_WU;
  }
}

let framedOnce = false;
function frameAll() {
  const box = new THREE.Box3();
  for (const city of state.cities.values()) {
    if (!city.plan) continue;
    box.expandByPoint(new THREE.Vector3(city.bounds.minX + city.offsetX, 0, city.bounds.minZ));
    box.expandByPoint(new THREE.Vector3(city.bounds.maxX + city.offsetX, city.highestPoint(), city.bounds.maxZ));
  }
  if (box.isEmpty()) return;
  flyTo(box);
}

function flyTo(box) {
  const centre = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3());
  const radius = Math.max(size.x, size.z, size.y * 0.8) * 0.75 + 4;
  const distance = radius / Math.tan((camera.fov * Math.PI) / 360);
  controls.target.copy(centre);
  camera.position.set(centre.x + distance * 0.55, centre.y + distance * 0.7, centre.z + distance * 0.65);
  camera.far = Math.max(20000, distance * 10);
  camera.updateProjectionMatrix();
  controls.update();
}

function flyToBuilding(city, i) {
  const roof = city.roof(i);
  const box = new THREE.Box3(roof.clone().add(new THREE.Vector3(-6, -roof.y, -6)), roof.clone().add(new THREE.Vector3(6, 2, 6)));
  flyTo(box);
  city.setHighlighted([i]);
}

function handle(message) {
  state.messages++;
  if (typeof message === 'string') {
    const json = JSON.parse(message);
    if (json.type === 'hello') state.look = json.look;
    else if (json.type === 'sessions') { state.sessions = json.sessions; renderSessions(); }
    return;
  }
  state.bytes += message.byteLength;
  const m = read(message);
  if (m.kind === PLAN) {
    const city = cityOf(m.session);
    city.setPlan(m);
    arrange();
    if (state.selected === null) state.selected = m.session;
  } else if (m.kind === HEIGHTS) {
    const city = cityOf(m.session);
    city.applyHeights(m, state.scale);
    if (!state.ready && city.plan && city.plan.methodIds.length > 0) {
      city.snapHeights();
      state.ready = true;
      state.firstCityMs = performance.now();
    }
    if (!framedOnce && city.plan) { framedOnce = true; frameAll(); }
    renderTop();
  }
}

// ---- the stream, or the recording -----------------------------------------------------------

function connect() {
  const url = new URL('stream', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = token ? `?token=${encodeURIComponent(token)}` : '';
  const socket = new WebSocket(url);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (event) => handle(event.data);
  socket.onclose = () => {
    $('status').textContent = 'disconnected from highrise; retrying…';
    for (const city of state.cities.values()) city.dispose();
    state.cities.clear();
    state.ready = false;
    setTimeout(connect, 1000);
  };
  socket.onopen = () => { $('status').textContent = ''; };
}

let frames = [];
let frameShown = -1;
function showFrame(index) {
  // Deltas apply forward; going back replays from the first frame (which holds every tower).
  const city = state.cities.get(1);
  if (!city) return;
  if (index < frameShown) frameShown = -1;
  for (let i = frameShown + 1; i <= index; i++) city.applyHeights(frames[i], state.scale);
  frameShown = index;
  $('time').textContent = `${city.timeS.toFixed(1)} s of ${recording.recording.duration_s.toFixed(1)} s`;
  renderTop();
}

function loadRecording() {
  state.look = recording.hello.look;
  state.sessions = [{ id: 1, title: recording.recording.title, status: `recording ${recording.recording.file}`, flow: '', alerts: [], notices: [], live: false }];
  renderSessions();
  handle(base64ToBuffer(recording.plan));
  frames = recording.frames.map((f) => read(base64ToBuffer(f)));
  const scrub = $('scrub');
  scrub.max = String(frames.length - 1);
  scrub.value = String(frames.length - 1);
  $('timeline').hidden = false;
  scrub.addEventListener('input', () => showFrame(Number(scrub.value)));
  showFrame(frames.length - 1);
  state.cities.get(1).snapHeights();
  state.ready = true;
  state.firstCityMs = performance.now();
  frameAll();
  const runTop = $('run-top');
  runTop.hidden = false;
  const list = $('run-top-list');
  for (const m of recording.recording.top) {
    const item = document.createElement('li');
    item.textContent = `${m.name} — ${m.mean_elevation_pct.toFixed(1)} %`;
    item.dataset.name = m.name;
    if (m.building >= 0) item.onclick = () => flyToBuilding(state.cities.get(1), m.building);
    list.appendChild(item);
  }
  let playing = null;
  $('play').onclick = () => {
    if (playing) { clearInterval(playing); playing = null; $('play').textContent = '▶'; return; }
    if (Number(scrub.value) >= frames.length - 1) scrub.value = '0';
    $('play').textContent = '⏸';
    playing = setInterval(() => {
      const next = Number(scrub.value) + 1;
      if (next >= frames.length) { clearInterval(playing); playing = null; $('play').textContent = '▶'; return; }
      scrub.value = String(next);
      showFrame(next);
    }, 100);
  };
}

// ---- the live timeline: back through the history the server keeps ----------------------

let historyRange = null;
async function api(path, query) {
  const q = new URLSearchParams(query);
  if (token) q.set('token', token);
  return fetch(`api/${path}?${q}`);
}

async function refreshHistory() {
  if (recording || state.selected === null) return;
  try {
    const response = await api('history', { session: state.selected });
    if (!response.ok) return;
    historyRange = await response.json();
    const scrub = $('scrub');
    const city = state.cities.get(state.selected);
    scrub.min = String(historyRange.oldest_s);
    scrub.max = String(historyRange.newest_s);
    scrub.step = '0.25';
    if (city && city.past === null) scrub.value = scrub.max;
    $('timeline').hidden = false;
    $('play').textContent = city && city.past !== null ? 'live' : '●';
    $('time').textContent = city && city.past !== null
      ? `${city.past.toFixed(1)} s (${(city.past - historyRange.newest_s).toFixed(1)} s)`
      : `live · ${(historyRange.newest_s - historyRange.oldest_s).toFixed(0)} s kept`;
  } catch (_) { /* the stream says when the server is gone */ }
}

let pastWanted = null;
async function showPast(timeS) {
  const city = state.cities.get(state.selected);
  if (!city || pastWanted !== null) { pastWanted = timeS; return; }
  pastWanted = timeS;
  while (pastWanted !== null) {
    const wanted = pastWanted;
    try {
      const response = await api('at', { session: city.session, t: wanted });
      if (response.ok) city.showPast(read(await response.arrayBuffer()), state.scale);
    } catch (_) { /* as above */ }
    if (pastWanted === wanted) pastWanted = null;
  }
  renderTop(true);
  refreshHistory();
}

function liveTimeline() {
  const scrub = $('scrub');
  scrub.addEventListener('input', () => showPast(Number(scrub.value)));
  $('play').onclick = () => {
    const city = state.cities.get(state.selected);
    if (city) city.backToLive(state.scale);
    renderTop(true);
    refreshHistory();
  };
  setInterval(refreshHistory, 1000);
}

// ---- compare: the diff city of two sessions (highrise lays out the shared plan) ---------

let diffTimer = null;
async function refreshDiff() {
  const a = Number($('compare-a').value), b = Number($('compare-b').value);
  const city = state.cities.get(DIFF_SESSION);
  const known = city && city.plan ? city.plan.generation : 0;
  try {
    const response = await api('diff', { a, b, plan: known });
    if (!response.ok || diffTimer === null) return;
    let buffer = await response.arrayBuffer();
    let message = read(buffer);
    if (message.kind === PLAN) {
      const diffCity = cityOf(DIFF_SESSION);
      diffCity.setPlan(message);
      arrange();
      buffer = buffer.slice(message.byteLength);
      message = read(buffer);
    }
    if (message.kind === DIFF) {
      const diffCity = state.cities.get(DIFF_SESSION);
      if (diffCity && diffCity.plan) diffCity.applyDiff(message);
      const titles = (id) => (state.sessions.find((s) => s.id === id) || { title: `session ${id}` }).title;
      $('compare-status').textContent = `diff city: ${titles(a)} → ${titles(b)}; full height = ${percent(message.fullScale)} difference`;
    }
  } catch (_) { /* the stream says when the server is gone */ }
}

function setDiff(on) {
  if (diffTimer !== null) { clearInterval(diffTimer); diffTimer = null; }
  const city = state.cities.get(DIFF_SESSION);
  if (city) { city.dispose(); state.cities.delete(DIFF_SESSION); arrange(); }
  $('compare-status').textContent = '';
  $('diff').textContent = on ? 'stop the diff city' : 'diff city';
  if (!on) return;
  diffTimer = setInterval(refreshDiff, 1000);
  refreshDiff().then(() => {
    const diffCity = state.cities.get(DIFF_SESSION);
    if (diffCity && diffCity.plan) {
      flyTo(new THREE.Box3(new THREE.Vector3(diffCity.bounds.minX + diffCity.offsetX, 0, diffCity.bounds.minZ),
        new THREE.Vector3(diffCity.bounds.maxX + diffCity.offsetX, diffCity.highestPoint(), diffCity.bounds.maxZ)));
    }
  });
}

function renderCompareChoices() {
  const live = state.sessions;
  $('compare').hidden = recording !== null || live.length < 2;
  for (const [id, fallback] of [['compare-a', 0], ['compare-b', 1]]) {
    const select = $(id);
    const chosen = select.value;
    const ids = live.map((s) => String(s.id));
    if (select.options.length === ids.length && [...select.options].every((o, i) => o.value === ids[i])) continue;
    select.replaceChildren(...live.map((s) => {
      const option = document.createElement('option');
      option.value = String(s.id);
      option.textContent = `${s.id}: ${s.title}`;
      return option;
    }));
    select.value = ids.includes(chosen) ? chosen : (ids[fallback] || ids[0] || '');
  }
}
$('diff').addEventListener('click', () => setDiff(diffTimer === null));
for (const id of ['compare-a', 'compare-b']) $(id).addEventListener('change', () => { if (diffTimer !== null) setDiff(true); });

// ---- panel ----------------------------------------------------------------------------------

function text(tag, content, className) {
  const element = document.createElement(tag);
  element.textContent = content;
  if (className) element.className = className;
  return element;
}

function renderSessions() {
  renderCompareChoices();
  const list = $('sessions');
  list.replaceChildren();
  for (const s of state.sessions) {
    const item = document.createElement('li');
    item.className = s.id === state.selected ? 'selected' : '';
    item.appendChild(text('div', s.title, 'title'));
    item.appendChild(text('div', [s.status, s.flow].filter(Boolean).join(' · '), 'small'));
    if (s.measure) item.appendChild(text('div', s.measure, 'small'));
    for (const notice of s.notices || []) item.appendChild(text('div', `agent: ${notice}`, 'small'));
    for (const alert of s.alerts || []) item.appendChild(text('div', `⚠ ${alert}`, 'badge'));
    item.onclick = () => {
      state.selected = s.id;
      refreshHistory();
      renderSessions();
      renderTop();
      const city = state.cities.get(s.id);
      if (city && city.plan) {
        flyTo(new THREE.Box3(new THREE.Vector3(city.bounds.minX + city.offsetX, 0, city.bounds.minZ),
          new THREE.Vector3(city.bounds.maxX + city.offsetX, city.highestPoint(), city.bounds.maxZ)));
      }
    };
    list.appendChild(item);
  }
}

let topShownAt = 0;
let topLater = null;
// At most twice a second; a call that comes sooner is made when the half second is up, so
// the last update (a session's end) is always shown.
function renderTop(force) {
  const now = performance.now();
  if (!force && now - topShownAt < 500) {
    if (topLater === null) topLater = setTimeout(() => { topLater = null; renderTop(true); }, 500 - (now - topShownAt));
    return;
  }
  topShownAt = now;
  const city = state.cities.get(state.selected) || state.cities.values().next().value;
  const list = $('top');
  list.replaceChildren();
  if (!city || !city.plan) return;
  for (const m of city.top(10)) {
    const item = text('li', `${m.name} — ${(m.elevation * 100).toFixed(1)} %`);
    item.dataset.name = m.name;
    item.onclick = () => flyToBuilding(city, m.building);
    list.appendChild(item);
  }
}

$('scale').addEventListener('change', (event) => {
  state.scale = event.target.value;
  for (const city of state.cities.values()) city.retarget(state.scale);
});

$('search').addEventListener('input', (event) => {
  const wanted = event.target.value.trim().toLowerCase();
  const list = $('found');
  list.replaceChildren();
  for (const city of state.cities.values()) {
    if (!city.plan) continue;
    const found = [];
    if (wanted.length >= 2) {
      city.plan.names.forEach((name, i) => { if (name.toLowerCase().includes(wanted)) found.push(i); });
    }
    city.setHighlighted(found);
    for (const i of found.slice(0, 20)) {
      const item = text('li', city.plan.names[i]);
      item.onclick = () => flyToBuilding(city, i);
      list.appendChild(item);
    }
  }
});

// ---- hover ----------------------------------------------------------------------------------

const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();
let hoverAt = null;
let hovered = null;
renderer.domElement.addEventListener('pointermove', (event) => {
  hoverAt = { x: event.clientX, y: event.clientY };
});
renderer.domElement.addEventListener('pointerleave', () => { hoverAt = null; hideTooltip(); });

function hideTooltip() {
  $('tooltip').hidden = true;
  hovered = null;
  state.tooltip = [];
}

function showTooltip(lines, at) {
  const tip = $('tooltip');
  tip.replaceChildren(...lines.map((line, i) => text('div', line, i === 0 ? 'title' : '')));
  tip.style.left = `${at.x + 16}px`;
  tip.style.top = `${at.y + 16}px`;
  tip.hidden = false;
  state.tooltip = lines;
}

function percent(fraction) { return `${(fraction * 100).toFixed(1)} %`; }

async function hover() {
  if (!hoverAt) return;
  const at = hoverAt;
  hoverAt = null;
  pointer.set((at.x / window.innerWidth) * 2 - 1, -(at.y / window.innerHeight) * 2 + 1);
  raycaster.setFromCamera(pointer, camera);
  const meshes = [...state.cities.values()].filter((c) => c.buildingMesh).map((c) => c.buildingMesh);
  const hit = raycaster.intersectObjects(meshes, false)[0];
  if (!hit) { hideTooltip(); return; }
  const city = hit.object.userData.city;
  const building = hit.instanceId;
  hovered = { session: city.session, building };
  if (city.isDiff) {
    const d = city.diff;
    const value = (v) => (Number.isNaN(v) ? 'absent' : percent(v));
    const change = ['no difference', 'only in B', 'only in A', 'moved between packages', 'faster in B', 'slower in B'][d.colour[building]];
    const lines = [city.plan.names[building], `A ${value(d.a[building])} → B ${value(d.b[building])}`, change];
    if (!Number.isNaN(d.a[building]) && !Number.isNaN(d.b[building])) {
      const points = (d.b[building] - d.a[building]) * 100;
      lines.push(`${points >= 0 ? '+' : ''}${points.toFixed(1)} points`);
    }
    showTooltip(lines, at);
    return;
  }
  if (recording) {
    // The recording's facts at the scrubber's moment.
    const m = recording.recording.top.find((t) => t.building === building);
    const lines = [
      city.plan.names[building],
      `elevation ${percent(city.elevation[building])} at ${city.timeS.toFixed(1)} s`,
      `threads ${city.threads[building]}`,
    ];
    if (m) lines.push(`mean over the run ${m.mean_elevation_pct.toFixed(1)} %`);
    showTooltip(lines, at);
    return;
  }
  try {
    const response = await api('facts', { session: city.session, building });
    if (!response.ok) return;
    const facts = await response.json();
    if (hovered && hovered.building === building && hovered.session === city.session) showTooltip(facts.lines, at);
  } catch (_) { /* the server went away: the stream says so */ }
}
setInterval(hover, 100);

// ---- labels: the hot spots' names, the packages' -------------------------------------------

const labels = $('labels');
const labelPool = [];

// A hot spot's name as the desktop labels it: class and method, without the package, and
// without the parameters when long.
function shortName(name) {
  const open = name.indexOf('(');
  const head = open < 0 ? name : name.slice(0, open);
  const parts = head.split('.');
  let short = parts.slice(-2).join('.') + (open < 0 ? '' : name.slice(open));
  if (short.length > 40 && open >= 0) short = parts.slice(-2).join('.') + '()';
  return short;
}

function placeLabels() {
  let used = 0;
  const w = window.innerWidth, h = window.innerHeight;
  const placed = [];
  // Labels are placed in order (hot spots first, tallest first); one that would overlap one
  // placed before moves up above it.
  const put = (position, content, className, skipIfCovered) => {
    const p = position.clone().project(camera);
    if (p.z > 1 || p.x < -1.1 || p.x > 1.1 || p.y < -1.1 || p.y > 1.1) return;
    let label = labelPool[used];
    if (!label) { label = document.createElement('div'); labels.appendChild(label); labelPool.push(label); }
    used++;
    label.className = className;
    if (label.textContent !== content) label.textContent = content;
    label.hidden = false;
    const width = label.offsetWidth, height = label.offsetHeight;
    let x = ((p.x + 1) / 2) * w - width / 2;
    let y = ((1 - p.y) / 2) * h - height;
    const covered = () => placed.some((r) => x < r.x + r.w && x + width > r.x && y < r.y + r.h && y + height > r.y);
    if (skipIfCovered && covered()) { label.hidden = true; used--; return; }
    for (let moved = true, tries = 0; moved && tries < 12; tries++) {
      moved = false;
      for (const r of placed) {
        if (x < r.x + r.w && x + width > r.x && y < r.y + r.h && y + height > r.y) {
          y = r.y - height - 2;
          moved = true;
        }
      }
    }
    placed.push({ x, y, w: width, h: height });
    label.style.transform = `translate(${x}px, ${y}px)`;
  };
  for (const city of state.cities.values()) {
    if (!city.plan) continue;
    for (const i of city.hotSpots()) {
      let figure = percent(city.elevation[i]);
      if (city.isDiff && city.diff) {
        const d = city.diff;
        figure = Number.isNaN(d.a[i]) || Number.isNaN(d.b[i]) ? figure
          : `${d.b[i] >= d.a[i] ? '+' : ''}${((d.b[i] - d.a[i]) * 100).toFixed(1)} pts`;
      }
      put(city.roof(i), `${shortName(city.plan.names[i])} ${figure}`, 'hot');
    }
  }
  for (const city of state.cities.values()) {
    if (!city.plan) continue;
    const cityWidth = Math.max(city.width(), 1);
    const d = city.plan.districts;
    let packages = 0;
    for (let i = 0; i < city.plan.depths.length && packages < 24; i++) {
      const depth = city.plan.depths[i];
      const wide = d[i * 6 + 2] - d[i * 6] >= cityWidth * 0.12;
      if (depth >= 1 && depth <= 2 && wide && city.plan.packages[i]) {
        put(city.districtTop(i), city.plan.packages[i].split('.').pop(), 'package', true);
        packages++;
      }
    }
  }
  for (let i = used; i < labelPool.length; i++) labelPool[i].hidden = true;
}

// ---- keys: fly as on the desktop (WASD / arrows move, Q/E down/up, F frames everything) --

const keys = new Set();
window.addEventListener('keydown', (event) => {
  if (event.target.tagName === 'INPUT' || event.target.tagName === 'SELECT') return;
  keys.add(event.key.toLowerCase());
  if (event.key.toLowerCase() === 'f') frameAll();
});
window.addEventListener('keyup', (event) => keys.delete(event.key.toLowerCase()));

function fly(dtS) {
  if (keys.size === 0) return;
  const distance = camera.position.distanceTo(controls.target);
  const speed = distance * 0.8 * dtS;
  const forward = new THREE.Vector3().subVectors(controls.target, camera.position).setY(0).normalize();
  const right = new THREE.Vector3().crossVectors(forward, camera.up).normalize();
  const move = new THREE.Vector3();
  if (keys.has('w') || keys.has('arrowup')) move.add(forward);
  if (keys.has('s') || keys.has('arrowdown')) move.sub(forward);
  if (keys.has('d') || keys.has('arrowright')) move.add(right);
  if (keys.has('a') || keys.has('arrowleft')) move.sub(right);
  if (keys.has('e')) move.y += 1;
  if (keys.has('q')) move.y -= 1;
  if (move.lengthSq() === 0) return;
  move.normalize().multiplyScalar(speed);
  camera.position.add(move);
  controls.target.add(move);
}

// ---- loop -----------------------------------------------------------------------------------

let last = performance.now();
function loop(now) {
  const dtS = Math.min((now - last) / 1000, 0.1);
  state.frameMs.push(now - last);
  if (state.frameMs.length > 600) state.frameMs.shift();
  last = now;
  fly(dtS);
  controls.update();
  const t0 = performance.now();
  for (const city of state.cities.values()) city.animate(dtS);
  const t1 = performance.now();
  renderer.render(scene, camera);
  const t2 = performance.now();
  placeLabels();
  const t3 = performance.now();
  state.partsMs.push([t1 - t0, t2 - t1, t3 - t2]);
  if (state.partsMs.length > 600) state.partsMs.shift();
  requestAnimationFrame(loop);
}
requestAnimationFrame(loop);

// For tests: where building `building` of `session` stands on screen (its roof's centre, a
// little below), or null when it is not in view.
state.screenOf = (session, building) => {
  const city = state.cities.get(session);
  if (!city || !city.plan) return null;
  const roof = city.roof(building);
  roof.y -= Math.min(city.height[building] * 0.3, 0.5);
  const p = roof.project(camera);
  if (p.z > 1 || Math.abs(p.x) > 1 || Math.abs(p.y) > 1) return null;
  return { x: ((p.x + 1) / 2) * window.innerWidth, y: ((1 - p.y) / 2) * window.innerHeight };
};
state.flyToBuilding = (session, building) => flyToBuilding(state.cities.get(session), building);
state.topNames = () => [...document.querySelectorAll('#top li')].map((li) => li.dataset.name);
state.runTopNames = () => [...document.querySelectorAll('#run-top-list li')].map((li) => li.dataset.name);
state.showFrame = (index) => { $('scrub').value = String(index); showFrame(index); };
state.showPast = (timeS) => showPast(timeS);
state.history = () => historyRange;
state.setDiff = (on) => setDiff(on);
state.frameCount = () => frames.length;
state.frameStats = () => {
  const sorted = [...state.frameMs].slice(1).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mean = (k) => state.partsMs.reduce((sum, p) => sum + p[k], 0) / Math.max(state.partsMs.length, 1);
  return { frames: sorted.length, median_ms: at(0.5), p95_ms: at(0.95), animate_ms: mean(0), render_call_ms: mean(1), labels_ms: mean(2) };
};
state.cameraAt = () => [camera.position.x, camera.position.y, camera.position.z].map((v) => Math.round(v * 1000) / 1000);
state.buildingCount = () => [...state.cities.values()].reduce((n, c) => n + (c.plan ? c.plan.methodIds.length : 0), 0);

if (recording) loadRecording();
else { connect(); liveTimeline(); }
