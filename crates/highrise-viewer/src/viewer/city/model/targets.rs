//! A city's targets: each building's target height and colour from a snapshot (a full pass,
//! or only the methods whose statistics changed since the last), from any function, and the
//! heights eased toward them each frame.

use highrise_aggregate::{MethodStats, Snapshot};

use super::{City, TargetsBase, EASING_RATE_PER_S};
use crate::viewer::city::palette::{
    relative_full_scale, stats_target, AllocSample, AllocScale, ColourKey, ColourMode, HeightFit,
    HeightMode, HeightScale, SQRT_FROM_BUILDINGS,
};

/// Whether two statistics are bit for bit the same (so they give the same targets).
#[inline]
fn same_stats(a: &MethodStats, b: &MethodStats) -> bool {
    (a.elevation.to_bits() ^ b.elevation.to_bits())
        | (a.inclusive_elevation.to_bits() ^ b.inclusive_elevation.to_bits())
        | (a.summed_elevation.to_bits() ^ b.summed_elevation.to_bits())
        | (a.thread_count ^ b.thread_count)
        | (a.calls ^ b.calls)
        == 0
}

impl City {
    /// How values map to heights in this pass: [`City::max_height_wu`] for the full scale,
    /// which the relative scales take from the snapshot's hottest method in the time modes (one
    /// pass over the snapshot; the memory modes have their own scale), by the square root where
    /// the scale says so ([`City::sqrt_heights`]).
    fn height_fit(&mut self, snapshot: &Snapshot, height_mode: HeightMode) -> HeightFit {
        self.full_scale =
            if self.height_scale == HeightScale::Absolute || height_mode.reads_memory() {
                1.0
            } else {
                let hottest = snapshot
                    .methods
                    .iter()
                    .map(|stats| height_mode.value(stats, AllocSample::default()))
                    .fold(0.0f32, f32::max);
                relative_full_scale(self.full_scale, hottest)
            };
        self.sqrt_heights = !height_mode.reads_memory()
            && match self.height_scale {
                HeightScale::Sqrt => true,
                HeightScale::Auto => self.method_ids.len() >= SQRT_FROM_BUILDINGS,
                HeightScale::Relative | HeightScale::Absolute => false,
            };
        HeightFit {
            full_height_wu: self.max_height_wu(),
            full_value: self.full_scale,
            sqrt: self.sqrt_heights,
        }
    }

    /// Recomputes target heights and colours from a snapshot.
    pub fn set_targets(
        &mut self,
        snapshot: &Snapshot,
        height_mode: HeightMode,
        colour_mode: ColourMode,
    ) {
        let fit = self.height_fit(snapshot, height_mode);
        let methods = snapshot.methods.as_slice();
        let count = self.method_ids.len().min(self.target_heights_wu.len());
        // First only the gather, in a tight loop the CPU can run many loads of at once (the
        // snapshot is indexed by method id, not in plot order); then the targets.
        let mut gathered = std::mem::take(&mut self.gathered);
        gathered.clear();
        gathered.extend(self.method_ids[..count].iter().map(|&id| {
            // Direct indexing (ids never seen read as zero), cheaper than a call per building.
            methods.get(id as usize).copied().unwrap_or_default()
        }));
        let memory = height_mode.reads_memory() || colour_mode.reads_memory();
        let scale = if memory {
            AllocScale::of(snapshot)
        } else {
            AllocScale::default()
        };
        let mut tallest_wu = 0.0f32;
        for (index, stats) in gathered.iter().enumerate() {
            let alloc = if memory {
                AllocSample::of(snapshot, self.method_ids[index])
            } else {
                AllocSample::default()
            };
            let (height_wu, colour) = stats_target(
                stats,
                alloc,
                self.blocks[index],
                (height_mode, colour_mode),
                scale,
                fit,
            );
            tallest_wu = tallest_wu.max(height_wu);
            self.apply_target(index, height_wu, colour);
        }
        self.tallest_target_wu = tallest_wu;
        self.gathered = gathered;
        self.targets_from = Some((snapshot.now_ns, height_mode, colour_mode));
        self.targets_base = None;
    }

    /// Like [`City::set_targets`], with the same result, but when the targets still stand as
    /// the previous snapshot's pass left them (same modes, scale and buildings), only the
    /// methods whose statistics changed since that snapshot are revisited (most are idle).
    /// The memory modes always take the full pass (their scale moves with every snapshot).
    pub fn set_targets_from(
        &mut self,
        snapshot: &std::sync::Arc<Snapshot>,
        height_mode: HeightMode,
        colour_mode: ColourMode,
    ) {
        let fit = self.height_fit(snapshot, height_mode);
        let count = self.method_ids.len().min(self.target_heights_wu.len());
        let base = self.targets_base.take();
        let memory = height_mode.reads_memory() || colour_mode.reads_memory();
        let incremental = base.as_ref().is_some_and(|base| {
            !memory
                && base.height_mode == height_mode
                && base.colour_mode == colour_mode
                && base.fit == fit
                && base.count == count
                && count == self.method_ids.len()
                && base.snapshot.methods.len() == snapshot.methods.len()
        });
        match (incremental, base, self.building_of_id.take()) {
            (true, Some(base), Some(building_of_id)) => {
                // First a pass in method-id order, sequential in both snapshots and the id
                // map, listing the changed buildings' targets; then the targets are written
                // (scattered over the buildings, in a tight loop).
                let new = snapshot.methods.as_slice();
                let old = base.snapshot.methods.as_slice();
                let ids = new.len().min(building_of_id.len());
                let mut changed = std::mem::take(&mut self.changed_targets);
                changed.clear();
                for ((stats, before), &(index, block)) in new[..ids]
                    .iter()
                    .zip(&old[..ids])
                    .zip(&building_of_id[..ids])
                {
                    if same_stats(stats, before) || index == u32::MAX {
                        continue;
                    }
                    let (height_wu, colour) = stats_target(
                        stats,
                        AllocSample::default(),
                        block,
                        (height_mode, colour_mode),
                        AllocScale::default(),
                        fit,
                    );
                    changed.push((index, height_wu, colour));
                }
                let mut lowered = false;
                let mut raised_wu = 0.0f32;
                for &(index, height_wu, colour) in &changed {
                    let index = index as usize;
                    lowered |= height_wu < self.target_heights_wu[index];
                    raised_wu = raised_wu.max(height_wu);
                    self.apply_target(index, height_wu, colour);
                }
                self.changed_targets = changed;
                self.building_of_id = Some(building_of_id);
                self.tallest_target_wu = if lowered {
                    tallest(&self.target_heights_wu[..count])
                } else {
                    self.tallest_target_wu.max(raised_wu)
                };
                self.targets_from = Some((snapshot.now_ns, height_mode, colour_mode));
            }
            (_, _, building_of_id) => {
                self.building_of_id = building_of_id;
                self.set_targets(snapshot, height_mode, colour_mode);
            }
        }
        if self.building_of_id.is_some() {
            self.targets_base = Some(TargetsBase {
                snapshot: std::sync::Arc::clone(snapshot),
                height_mode,
                colour_mode,
                fit,
                count,
            });
        }
    }

    /// Sets every building's target height and colour from `target(index, building)`, listing
    /// the ones that must move or change colour.
    pub fn set_targets_with(
        &mut self,
        mut target: impl FnMut(usize, &highrise_layout::Building) -> (f32, ColourKey),
    ) {
        // The plan is only read; lend it out so the targets can be written as we go.
        let Some(layout) = self.layout.take() else {
            return;
        };
        self.targets_base = None;
        let mut tallest_wu = 0.0f32;
        for (index, building) in layout.buildings().iter().enumerate() {
            let (height_wu, colour) = target(index, building);
            tallest_wu = tallest_wu.max(height_wu);
            self.apply_target(index, height_wu, colour);
        }
        self.tallest_target_wu = tallest_wu;
        self.layout = Some(layout);
    }

    /// Sets one building's target height and colour, listing it to move or recolour.
    #[inline]
    fn apply_target(&mut self, index: usize, target_height_wu: f32, target_colour: ColourKey) {
        if self.target_heights_wu[index] != target_height_wu {
            self.target_heights_wu[index] = target_height_wu;
            if !self.animating_flags[index] {
                self.animating_flags[index] = true;
                self.animating.push(index);
            }
        }
        if self.target_colours[index] != target_colour {
            self.target_colours[index] = target_colour;
            self.recolour.push(index);
        }
    }

    /// Moves every height a step toward its target and writes it into the building's instance
    /// in the same pass. True if any building moved.
    pub fn ease(&mut self, dt_s: f32) -> bool {
        if self.animating.is_empty() {
            return false;
        }
        let blend = 1.0 - (-EASING_RATE_PER_S * dt_s).exp();
        let count = self.heights_wu.len();
        let step = |height: &mut f32, target: f32| {
            let gap = target - *height;
            *height = if gap.abs() < 0.005 {
                target
            } else {
                *height + gap * blend
            };
        };
        let (heights, targets, flags, animating) = (
            &mut self.heights_wu,
            &self.target_heights_wu,
            &mut self.animating_flags,
            &mut self.animating,
        );
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        if animating.len() > count / 8 {
            // Most of the city is moving: one pass in index order over the flags walks the
            // heights and the instances in memory order.
            animating.clear();
            for index in 0..count {
                if !flags[index] {
                    continue;
                }
                let height = &mut heights[index];
                step(height, targets[index]);
                if let Some(instance) = instances.get_mut(index) {
                    instance.height = *height;
                }
                if *height == targets[index] {
                    flags[index] = false;
                } else {
                    animating.push(index);
                }
            }
        } else {
            animating.retain(|&index| {
                let height = &mut heights[index];
                step(height, targets[index]);
                if let Some(instance) = instances.get_mut(index) {
                    instance.height = *height;
                }
                let still_moving = *height != targets[index];
                flags[index] = still_moving;
                still_moving
            });
        }
        self.heights_dirty = true;
        true
    }
}

/// The largest of `heights_wu` (and 0), as `fold(0.0, f32::max)` gives it, in eight lanes.
fn tallest(heights_wu: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let chunks = heights_wu.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &height) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(height);
        }
    }
    rest.iter()
        .chain(&lanes)
        .fold(0.0f32, |tallest, &height| tallest.max(height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use highrise_layout::synthetic::{synthetic_methods, SplitMix64, SyntheticShape};
    use highrise_layout::MethodSpec;

    fn city(methods: &[MethodSpec]) -> City {
        let mut city = City::default();
        city.place(&mut methods.to_vec());
        city
    }

    fn sorted(list: &[usize]) -> Vec<usize> {
        let mut list = list.to_vec();
        list.sort_unstable();
        list.dedup();
        list
    }

    /// Revisiting only the changed methods leaves exactly what a full pass leaves: targets,
    /// colours, the tallest target, and the buildings listed to move or recolour.
    #[test]
    fn incremental_targets_match_a_full_pass() {
        let shape = SyntheticShape {
            methods: 3_000,
            classes: 300,
            packages: 30,
            max_depth: 3,
            seed: 7,
        };
        let methods = synthetic_methods(&shape);
        let (mut full, mut incremental) = (city(&methods), city(&methods));
        let mut random = SplitMix64::new(11);
        let mut stats = vec![MethodStats::default(); methods.len() + 5];
        let modes = [
            (HeightMode::Exclusive, ColourMode::Heat),
            (HeightMode::Summed, ColourMode::Threads),
            (HeightMode::Inclusive, ColourMode::Class),
        ];
        let mut busy_steps = 0;
        for step in 0..60u64 {
            for entry in stats.iter_mut() {
                match random.next_u64() % 10 {
                    0 => *entry = MethodStats::default(),
                    1 => {
                        let value = (random.next_u64() % 1000) as f32 / 700.0;
                        *entry = MethodStats {
                            elevation: value,
                            inclusive_elevation: value * 0.5,
                            summed_elevation: value * 1.5,
                            thread_count: (random.next_u64() % 9) as u32,
                            parked_threads: 0,
                            calls: (random.next_u64() % 3) as u32,
                            approximate: false,
                        };
                    }
                    _ => {}
                }
            }
            let snapshot = std::sync::Arc::new(Snapshot {
                now_ns: step,
                methods: stats.clone(),
                ..Snapshot::default()
            });
            let (height_mode, colour_mode) = modes[(step / 20) as usize];
            full.set_targets(&snapshot, height_mode, colour_mode);
            incremental.set_targets_from(&snapshot, height_mode, colour_mode);
            assert!(incremental.targets_base.is_some());
            let bits = |city: &City| -> Vec<u32> {
                city.target_heights_wu.iter().map(|h| h.to_bits()).collect()
            };
            assert_eq!(bits(&full), bits(&incremental), "step {step}");
            assert_eq!(full.target_colours, incremental.target_colours);
            assert_eq!(
                full.tallest_target_wu.to_bits(),
                incremental.tallest_target_wu.to_bits()
            );
            assert_eq!(sorted(&full.animating), sorted(&incremental.animating));
            assert_eq!(sorted(&full.recolour), sorted(&incremental.recolour));
            assert_eq!(full.animating_flags, incremental.animating_flags);
            assert_eq!(full.targets_from, incremental.targets_from);
            let mut heights = full.heights_wu.clone();
            let mut flags = full.animating_flags.clone();
            let busy = full.animating.len() > heights.len() / 8;
            let expected = reference_ease(&mut heights, &full.target_heights_wu, &mut flags);
            let moved_full = full.ease(0.016);
            let bits = |h: &[f32]| -> Vec<u32> { h.iter().map(|h| h.to_bits()).collect() };
            if busy {
                assert_eq!(bits(&heights), bits(&full.heights_wu));
                assert_eq!(flags, full.animating_flags);
                assert_eq!(!expected.is_empty(), moved_full);
                assert_eq!(sorted(&full.animating), full.animating);
                busy_steps += 1;
            }
            let moved_incremental = incremental.ease(0.016);
            assert_eq!(moved_full, moved_incremental);
            assert_eq!(bits(&full.heights_wu), bits(&incremental.heights_wu));
            full.recolour.clear();
            incremental.recolour.clear();
        }
        assert!(busy_steps > 10);
    }

    /// The city-wide easing pass as it was written with branches: the moved list.
    fn reference_ease(heights: &mut [f32], targets: &[f32], flags: &mut [bool]) -> Vec<usize> {
        let blend = 1.0 - (-EASING_RATE_PER_S * 0.016f32).exp();
        let mut moved = Vec::new();
        for index in 0..heights.len() {
            if !flags[index] {
                continue;
            }
            let (height, target) = (&mut heights[index], targets[index]);
            let gap = target - *height;
            *height = if gap.abs() < 0.005 {
                target
            } else {
                *height + gap * blend
            };
            moved.push(index);
            if *height == target {
                flags[index] = false;
            }
        }
        moved
    }
}
