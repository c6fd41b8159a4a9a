// One session's city in the scene: its slabs and buildings as instanced boxes, its towers'
// targets and their easing, hover and hot spots. Heights and colours come from highrise's
// messages and its `look`; this file only draws them.
import * as THREE from 'three';
import { IDLE } from './wire.js';

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
    const old = this.plan;
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
    this.rebuildMeshes(old);
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
    this.buildingMesh.computeBoundingSphere();
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

  // A heights message: the changed towers (or all), and the scale's full value.
  applyHeights(message, scale) {
    if (!this.plan) return;
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

  // Targets from elevations under the height scale (auto, relative, sqrt, absolute): the
  // desktop's HeightFit with highrise's numbers.
  retarget(scale) {
    if (!this.plan) return;
    const look = this.look;
    const n = this.heat.length;
    const full = scale === 'absolute' ? 1 : Math.max(this.relativeFull, 1e-9);
    const sqrt = scale === 'sqrt' || (scale === 'auto' && n >= look.sqrt_from_buildings);
    const stub = look.stub_height_wu;
    for (let i = 0; i < n; i++) {
      if (this.heat[i] === IDLE) { this.target[i] = stub; continue; }
      let ratio = Math.min(Math.max(this.elevation[i] / full, 0), 1.5);
      if (sqrt) ratio = Math.sqrt(ratio);
      this.target[i] = Math.max(ratio * this.plan.fullHeightWu, stub * 2);
    }
    this.animating = true;
  }

  // Eases heights toward targets; true while anything moved.
  animate(dtS) {
    if (!this.animating || !this.plan) return false;
    const step = 1 - Math.exp(-EASING_RATE_PER_S * dtS);
    let moving = false;
    for (let i = 0; i < this.height.length; i++) {
      const gap = this.target[i] - this.height[i];
      if (gap === 0) continue;
      if (Math.abs(gap) < 0.002) this.height[i] = this.target[i];
      else { this.height[i] += gap * step; moving = true; }
      this.placeBuilding(i);
    }
    this.buildingMesh.instanceMatrix.needsUpdate = true;
    this.buildingMesh.computeBoundingSphere();
    this.animating = moving;
    return true;
  }

  snapHeights() {
    this.height.set(this.target);
    for (let i = 0; i < this.height.length; i++) this.placeBuilding(i);
    this.buildingMesh.instanceMatrix.needsUpdate = true;
    this.buildingMesh.computeBoundingSphere();
    this.animating = false;
  }

  // The hottest buildings that stand out (the desktop's hot-spot rule), tallest first.
  hotSpots() {
    if (!this.plan) return [];
    const order = [];
    for (let i = 0; i < this.target.length; i++) if (this.heat[i] !== IDLE) order.push(i);
    order.sort((a, b) => this.target[b] - this.target[a]);
    const tallest = order.length ? this.target[order[0]] : 0;
    return order
      .slice(0, this.look.hot_spot_names)
      .filter((i) => this.target[i] >= this.look.hot_spot_min_share * tallest && this.elevation[i] > 0);
  }

  // The highest methods now: [{ building, name, elevation }].
  top(count) {
    const order = [];
    for (let i = 0; i < this.elevation.length; i++) if (this.elevation[i] > 0) order.push(i);
    order.sort((a, b) => this.elevation[b] - this.elevation[a] || (this.plan.names[a] < this.plan.names[b] ? -1 : 1));
    return order.slice(0, count).map((i) => ({ building: i, name: this.plan.names[i], elevation: this.elevation[i] }));
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
    let tallest = 0;
    for (let i = 0; i < this.target.length; i++) tallest = Math.max(tallest, this.target[i]);
    return this.slabTop + Math.max(tallest, this.plan ? this.plan.fullHeightWu : 8);
  }
}

export { CITY_GAP_WU };
