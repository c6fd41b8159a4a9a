// One session's city in the scene: its slabs and buildings as instanced boxes, its towers'
// targets and their easing, hover and hot spots. Heights and colours come from highrise's
// messages and its `look`; this file only draws them.
import * as THREE from 'three';
import { IDLE, DIFF_SESSION } from './wire.js';

// The desktop viewer's easing: the fraction of the remaining distance covered per second is
// 1 − e^(−rate).
const EASING_RATE_PER_S = 9.0;
const CITY_GAP_WU = 24;

const unitBox = new THREE.BoxGeometry(1, 1, 1).translate(0, 0.5, 0);
const dummy = new THREE.Object3D();

function srgb(rgb) {
  return new THREE.Color().setRGB(rgb[0], rgb[1], rgb[2], THREE.SRGBColorSpace);
}

export class City {
  constructor(scene, look, session) {
    this.scene = scene;
    this.look = look;
    this.session = session;
    this.isDiff = session === DIFF_SESSION;
    this.diffColours = [];
    this.group = new THREE.Group();
    scene.add(this.group);
    this.plan = null;
    this.offsetX = 0;
    this.relativeFull = 1;
    this.timeS = 0;
    this.elevation = new Float32Array(0);
    this.heat = new Uint8Array(0);
    this.threads = new Uint8Array(0);
    this.height = new Float32Array(0);
    this.target = new Float32Array(0);
    this.highlighted = new Set();
    // The towers as the stream says they are now; the ones drawn differ while a past moment
    // is shown (`past`: its program time).
    this.live = { elevation: new Float32Array(0), heat: new Uint8Array(0), threads: new Uint8Array(0) };
    this.past = null;
    this.liveTimeS = 0;
    this.moving = [];
    this.hot = [];
    this.heatColours = look.heat.map(srgb);
    this.stubColour = srgb(look.stub);
    this.highlightColour = srgb(look.highlight);
  }

  dispose() {
    for (const mesh of [this.districtMesh, this.blockMesh, this.buildingMesh]) {
      if (mesh) { this.group.remove(mesh); mesh.dispose(); }
    }
    this.scene.remove(this.group);
  }

  width() {
    return this.plan ? this.bounds.maxX - this.bounds.minX : 0;
  }

  setPlan(plan) {
    this.plan = plan;
    const n = plan.methodIds.length;
    const carry = (array, Type, fill) => {
      const next = new Type(n).fill(fill);
      next.set(array.subarray(0, Math.min(array.length, n)));
      return next;
    };
    this.elevation = carry(this.elevation, Float32Array, 0);
    this.heat = carry(this.heat, Uint8Array, IDLE);
    this.threads = carry(this.threads, Uint8Array, 0);
    this.live = {
      elevation: carry(this.live.elevation, Float32Array, 0),
      heat: carry(this.live.heat, Uint8Array, IDLE),
      threads: carry(this.live.threads, Uint8Array, 0),
    };
    this.height = carry(this.height, Float32Array, this.look.stub_height_wu);
    this.target = carry(this.target, Float32Array, this.look.stub_height_wu);
    let minX = Infinity, minZ = Infinity, maxX = -Infinity, maxZ = -Infinity;
    const d = plan.districts;
    for (let i = 0; i < d.length; i += 6) {
      minX = Math.min(minX, d[i]); minZ = Math.min(minZ, d[i + 1]);
      maxX = Math.max(maxX, d[i + 2]); maxZ = Math.max(maxZ, d[i + 3]);
    }
    if (!isFinite(minX)) { minX = minZ = 0; maxX = maxZ = 1; }
    this.bounds = { minX, minZ, maxX, maxZ };
    this.slabTop = 0;
    for (let i = 0; i < d.length; i += 6) this.slabTop = Math.max(this.slabTop, d[i + 5]);
    this.rebuildMeshes();
  }

  rebuildMeshes() {
    for (const mesh of [this.districtMesh, this.blockMesh, this.buildingMesh]) {
      if (mesh) { this.group.remove(mesh); mesh.dispose(); }
    }
    const plan = this.plan;
    const material = () => new THREE.MeshLambertMaterial({ color: 0xffffff });
    const slabs = (rects, count, colourOf) => {
      const mesh = new THREE.InstancedMesh(unitBox, material(), Math.max(count, 1));
      mesh.count = count;
      for (let i = 0; i < count; i++) {
        const [x0, z0, x1, z1, base, top] = rects.subarray(i * 6, i * 6 + 6);
        dummy.position.set((x0 + x1) / 2, base, (z0 + z1) / 2);
        dummy.scale.set(Math.max(x1 - x0, 0.01), Math.max(top - base, 0.01), Math.max(z1 - z0, 0.01));
        dummy.updateMatrix();
        mesh.setMatrixAt(i, dummy.matrix);
        mesh.setColorAt(i, colourOf(i));
      }
      mesh.instanceMatrix.needsUpdate = true;
      if (mesh.instanceColor) mesh.instanceColor.needsUpdate = true;
      this.group.add(mesh);
      return mesh;
    };
    const districtColours = this.look.districts.map(srgb);
    this.districtMesh = slabs(plan.districts, plan.depths.length,
      (i) => districtColours[Math.min(plan.depths[i], districtColours.length - 1)]);
    const blockColour = srgb(this.look.block);
    this.blockMesh = slabs(plan.blocks, plan.blocks.length / 6, () => blockColour);
    const n = plan.methodIds.length;
    this.buildingMesh = new THREE.InstancedMesh(unitBox, material(), Math.max(n, 1));
    this.buildingMesh.count = n;
    this.buildingMesh.userData.city = this;
    for (let i = 0; i < n; i++) {
      this.placeBuilding(i);
      this.colourBuilding(i);
    }
    this.buildingMesh.instanceMatrix.needsUpdate = true;
    this.buildingMesh.instanceColor.needsUpdate = true;
    this.fitBounds();
    this.group.add(this.buildingMesh);
  }

  placeBuilding(i) {
    const b = this.plan.buildings;
    const [x0, z0, x1, z1, base] = b.subarray(i * 5, i * 5 + 5);
    dummy.position.set((x0 + x1) / 2, base, (z0 + z1) / 2);
    dummy.scale.set(x1 - x0, Math.max(this.height[i], 0.001), z1 - z0);
    dummy.updateMatrix();
    this.buildingMesh.setMatrixAt(i, dummy.matrix);
  }

  colourBuilding(i) {
    if (this.isDiff) {
      const colour = this.highlighted.has(i) ? this.highlightColour : this.diffColours[i] || this.stubColour;
      this.buildingMesh.setColorAt(i, colour);
      return;
    }
    let colour;
    if (this.highlighted.has(i)) colour = this.highlightColour;
    else if (this.heat[i] === IDLE) colour = this.stubColour;
    else colour = this.heatColours[Math.min(this.heat[i], this.heatColours.length - 1)];
    this.buildingMesh.setColorAt(i, colour);
  }

  setHighlighted(indices) {
    const before = this.highlighted;
    this.highlighted = new Set(indices);
    if (!this.buildingMesh) return;
    for (const i of before) if (i < this.heat.length) this.colourBuilding(i);
    for (const i of this.highlighted) if (i < this.heat.length) this.colourBuilding(i);
    this.buildingMesh.instanceColor.needsUpdate = true;
  }

  // A heights message: the changed towers (or all), and the scale's full value. While a past
  // moment is shown, only the live copy follows.
  applyHeights(message, scale) {
    if (!this.plan) return;
    const live = this.live;
    const n = this.heat.length;
    for (let k = 0; k < message.index.length; k++) {
      const i = message.index[k];
      if (i >= n) continue;
      live.elevation[i] = message.elevation[k];
      live.heat[i] = message.heat[k];
      live.threads[i] = message.threads[k];
    }
    this.liveTimeS = message.timeS;
    this.liveFull = message.relativeFull;
    if (this.past !== null) return;
    this.show(message, scale);
  }

  // Draws a heights message's towers (the changed ones, or all).
  show(message, scale) {
    this.relativeFull = message.relativeFull;
    this.timeS = message.timeS;
    const n = this.heat.length;
    for (let k = 0; k < message.index.length; k++) {
      const i = message.index[k];
      if (i >= n) continue;
      this.elevation[i] = message.elevation[k];
      this.heat[i] = message.heat[k];
      this.threads[i] = message.threads[k];
      this.colourBuilding(i);
    }
    this.buildingMesh.instanceColor.needsUpdate = true;
    this.retarget(scale);
  }

  // The diff city's towers (a DIFF message): heights and colours as highrise computed them.
  applyDiff(message) {
    if (!this.plan || message.height.length !== this.heat.length) return;
    const look = this.look;
    const stub = look.stub_height_wu;
    // Colour by code: 0 none, 1 added, 2 removed, 3 moved, 4 faster, 5 slower (by step).
    if (!this.diffPalette) {
      this.diffPalette = {
        1: srgb(look.diff.added), 2: srgb(look.diff.removed), 3: srgb(look.diff.moved),
        4: look.diff.faster.map(srgb), 5: look.diff.slower.map(srgb),
      };
    }
    const palette = this.diffPalette;
    this.diff = message;
    if (!this.diffColours || this.diffColours.length !== message.height.length) this.diffColours = new Array(message.height.length);
    const moving = [];
    for (let i = 0; i < message.height.length; i++) {
      const h = message.height[i];
      const target = h === 0 ? stub : h === 1 ? stub * 2
        : Math.max(((h - 2) / 65533) * 1.5 * this.plan.fullHeightWu, stub * 2);
      this.target[i] = target;
      if (target !== this.height[i]) moving.push(i);
      const code = message.colour[i];
      let colour = palette[code] || this.stubColour;
      if (Array.isArray(colour)) colour = colour[Math.min(message.step[i], colour.length - 1)];
      // Elevation: the larger of the two, for ranking and hot spots.
      this.elevation[i] = Math.max(message.a[i] || 0, message.b[i] || 0);
      this.heat[i] = code === 0 ? IDLE : 0;
      this.diffColours[i] = colour;
      this.colourBuilding(i);
    }
    this.buildingMesh.instanceColor.needsUpdate = true;
    this.moving = moving;
    this.hot = this.findHotSpots();
  }

  // Shows a past moment (a heights message holding every tower) until `backToLive`.
  showPast(message, scale) {
    if (!this.plan) return;
    this.past = message.timeS;
    this.show(message, scale);
  }

  backToLive(scale) {
    if (this.past === null || !this.plan) return;
    this.past = null;
    this.elevation.set(this.live.elevation);
    this.heat.set(this.live.heat);
    this.threads.set(this.live.threads);
    this.relativeFull = this.liveFull;
    this.timeS = this.liveTimeS;
    for (let i = 0; i < this.heat.length; i++) this.colourBuilding(i);
    this.buildingMesh.instanceColor.needsUpdate = true;
    this.retarget(scale);
  }

  // Targets from elevations under the height scale (auto, relative, sqrt, absolute): the
  // desktop's HeightFit with highrise's numbers.
  retarget(scale) {
    if (!this.plan || this.isDiff) return;
    const look = this.look;
    const n = this.heat.length;
    const full = scale === 'absolute' ? 1 : Math.max(this.relativeFull, 1e-9);
    const sqrt = scale === 'sqrt' || (scale === 'auto' && n >= look.sqrt_from_buildings);
    const stub = look.stub_height_wu;
    const moving = [];
    for (let i = 0; i < n; i++) {
      let target = stub;
      if (this.heat[i] !== IDLE) {
        let ratio = Math.min(Math.max(this.elevation[i] / full, 0), 1.5);
        if (sqrt) ratio = Math.sqrt(ratio);
        target = Math.max(ratio * this.plan.fullHeightWu, stub * 2);
      }
      this.target[i] = target;
      if (target !== this.height[i]) moving.push(i);
    }
    this.moving = moving;
    this.hot = this.findHotSpots();
  }

  // Eases heights toward targets (only the buildings still moving); true while any moves.
  animate(dtS) {
    if (this.moving.length === 0 || !this.plan) return false;
    const step = 1 - Math.exp(-EASING_RATE_PER_S * dtS);
    const still = [];
    for (const i of this.moving) {
      const gap = this.target[i] - this.height[i];
      if (Math.abs(gap) < 0.002) this.height[i] = this.target[i];
      else { this.height[i] += gap * step; still.push(i); }
      this.placeBuilding(i);
    }
    this.moving = still;
    this.buildingMesh.instanceMatrix.needsUpdate = true;
    return true;
  }

  snapHeights() {
    this.height.set(this.target);
    for (let i = 0; i < this.height.length; i++) this.placeBuilding(i);
    this.buildingMesh.instanceMatrix.needsUpdate = true;
    this.moving = [];
  }

  // Bounds for culling and hover, from the plan: as tall as a building can stand (1.5 × full
  // height), so nothing is recomputed as heights move.
  fitBounds() {
    const { minX, minZ, maxX, maxZ } = this.bounds;
    const box = new THREE.Box3(new THREE.Vector3(minX, 0, minZ),
      new THREE.Vector3(maxX, this.slabTop + 1.5 * this.plan.fullHeightWu + 1, maxZ));
    this.buildingMesh.boundingBox = box;
    this.buildingMesh.boundingSphere = box.getBoundingSphere(new THREE.Sphere());
  }

  // The hottest buildings that stand out (the desktop's hot-spot rule), tallest first.
  hotSpots() {
    return this.hot;
  }

  findHotSpots() {
    const count = this.look.hot_spot_names;
    const best = [];
    for (let i = 0; i < this.target.length; i++) {
      if (this.heat[i] === IDLE || this.elevation[i] <= 0) continue;
      if (best.length === count && this.target[i] <= this.target[best[count - 1]]) continue;
      best.push(i);
      best.sort((a, b) => this.target[b] - this.target[a]);
      if (best.length > count) best.pop();
    }
    const tallest = best.length ? this.target[best[0]] : 0;
    return best.filter((i) => this.target[i] >= this.look.hot_spot_min_share * tallest);
  }

  // The highest methods now: [{ building, name, elevation }].
  top(count) {
    const rank = (a, b) => this.elevation[b] - this.elevation[a] || (this.plan.names[a] < this.plan.names[b] ? -1 : 1);
    const best = [];
    for (let i = 0; i < this.elevation.length; i++) {
      if (this.elevation[i] <= 0) continue;
      if (best.length === count && rank(i, best[count - 1]) >= 0) continue;
      best.push(i);
      best.sort(rank);
      if (best.length > count) best.pop();
    }
    return best.map((i) => ({ building: i, name: this.plan.names[i], elevation: this.elevation[i] }));
  }

  // World position of a building's roof.
  roof(i) {
    const b = this.plan.buildings;
    return new THREE.Vector3(
      (b[i * 5] + b[i * 5 + 2]) / 2 + this.offsetX,
      b[i * 5 + 4] + this.height[i],
      (b[i * 5 + 1] + b[i * 5 + 3]) / 2,
    );
  }

  // Where a district's label stands: its centre, on its slab.
  districtTop(i) {
    const d = this.plan.districts;
    return new THREE.Vector3((d[i * 6] + d[i * 6 + 2]) / 2 + this.offsetX, d[i * 6 + 5] + 0.5, (d[i * 6 + 1] + d[i * 6 + 3]) / 2);
  }

  setOffset(x) {
    this.offsetX = x;
    this.group.position.x = x;
  }

  highestPoint() {
    const tallest = this.hot.length ? this.target[this.hot[0]] : 0;
    return this.slabTop + Math.max(tallest, this.plan ? this.plan.fullHeightWu : 8);
  }
}

export { CITY_GAP_WU };
