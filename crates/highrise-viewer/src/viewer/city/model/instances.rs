//! Writing a city's instances: placing its buildings' instances, the keys their level of
//! detail is decided by, the blocks' grouped boxes, the colours when it turns grey or its
//! dimming changes, and a failed city's only upkeep.

use bevy::prelude::*;

use super::{is_grey, place_instance, City};
use crate::viewer::city::palette::{ColourKey, Palette};
use crate::viewer::instancing::{building_instance, lod_key, ALWAYS_DETAILED, GROUPED_ALPHA};

impl City {
    /// (Re)places the instances of buildings `from..` for the city's current origin, heights
    /// and colours.
    pub(in crate::viewer::city) fn place_instances(&mut self, from: usize, palette: &Palette) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        instances.truncate(from);
        for (index, building) in layout.buildings().iter().enumerate().skip(from) {
            instances.push(place_instance(
                building,
                self.origin,
                self.heights_wu[index],
                palette.building_rgba(
                    self.colours[index],
                    is_grey(self.greyed, &self.dimmed, index),
                ),
            ));
        }
        self.instances_origin = self.origin;
        self.instances_dirty = true;
    }

    /// Writes where each building's level of detail is decided: its block's centre in the
    /// plan (or nowhere, when the city is all detailed). After the plan changed: a block that
    /// grew moved its centre.
    pub(in crate::viewer::city) fn refresh_lod_keys(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let blocks = layout.blocks();
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        for (instance, building) in instances.iter_mut().zip(layout.buildings()) {
            instance.lod = match blocks.get(building.block as usize) {
                Some(block) if !self.all_detailed => {
                    let (to, from) = (block.rect.center(), building.footprint.center());
                    lod_key(to.x - from.x, to.z - from.z)
                }
                _ => ALWAYS_DETAILED,
            };
        }
        self.instances_dirty = true;
    }

    /// Rebuilds the blocks' grouped boxes from the buildings as drawn now: each block's box
    /// covers its buildings' footprints (the block inset like a plot), as tall as its tallest
    /// building and in that building's colour. None when the city is all detailed.
    pub(in crate::viewer::city) fn place_grouped_boxes(&mut self, palette: &Palette) {
        let boxes = std::sync::Arc::make_mut(&mut self.grouped_boxes);
        boxes.clear();
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        if self.all_detailed || self.instances.len() != self.blocks.len() {
            return;
        }
        let tallest = &mut self.block_tallest;
        tallest.clear();
        tallest.resize(layout.blocks().len(), (f32::NEG_INFINITY, u32::MAX));
        // A block's buildings mostly follow each other in plan order: the tallest of each run
        // is found in registers and written once per run.
        // A block's buildings mostly follow each other in plan order: the tallest of each run
        // is found in registers and written once per run.
        let (blocks, heights) = (&self.blocks, &self.heights_wu);
        let count = blocks.len().min(heights.len());
        let mut start = 0;
        while start < count {
            let block = blocks[start];
            let mut end = start + 1;
            let (mut best_wu, mut best) = (heights[start], start);
            while end < count && blocks[end] == block {
                if heights[end] > best_wu {
                    (best_wu, best) = (heights[end], end);
                }
                end += 1;
            }
            if let Some(slot) = tallest.get_mut(block as usize) {
                if best_wu > slot.0 {
                    *slot = (best_wu, best as u32);
                }
            }
            start = end;
        }
        let inset_wu = layout.config().building_inset_wu;
        let gliding = self.glide.is_some() && self.shown_blocks.len() == tallest.len();
        let origin = self.instances_origin;
        for (index, (block, &(height_wu, building))) in
            layout.blocks().iter().zip(tallest.iter()).enumerate()
        {
            let Some(&colour) = self.colours.get(building as usize) else {
                continue; // no building on this block
            };
            let rect = if gliding {
                self.shown_blocks[index].1
            } else {
                block.rect
            };
            let centre = rect.center();
            // The building's colour as drawn, from the palette (cheaper than reading its
            // instance back: one small entry a block instead of a cache miss).
            let [r, g, b, _] = palette.building_rgba(
                colour,
                is_grey(self.greyed, &self.dimmed, building as usize),
            );
            let mut group = building_instance(
                centre.x + origin.x,
                block.top_height_wu,
                centre.z + origin.z,
                height_wu,
                (rect.width_wu() - 2.0 * inset_wu).max(inset_wu),
                (rect.depth_wu() - 2.0 * inset_wu).max(inset_wu),
                [r, g, b, GROUPED_ALPHA],
            );
            group.lod = lod_key(0.0, 0.0);
            boxes.push(group);
        }
    }

    /// Rewrites every instance's colour when the city turned grey (once) or its dimming
    /// changed.
    pub(in crate::viewer::city) fn recolour_greyed(&mut self, palette: &Palette) {
        if self.greyed == self.greyed_drawn && !self.dimmed_dirty {
            return;
        }
        self.greyed_drawn = self.greyed;
        self.dimmed_dirty = false;
        let instances = std::sync::Arc::make_mut(&mut self.instances);
        for (index, (instance, &colour)) in instances.iter_mut().zip(&self.colours).enumerate() {
            instance.rgba =
                palette.building_rgba(colour, is_grey(self.greyed, &self.dimmed, index));
        }
        self.instances_dirty = true;
    }

    /// A failed city's only upkeep: its instances follow it when the scene moves it, and turn
    /// grey (no indexing: its arrays may be out of step after the panic); a glide stops where
    /// it stood.
    pub(in crate::viewer::city) fn follow_failed(&mut self, palette: &Palette) {
        self.greyed = true;
        self.glide = None;
        if !self.all_detailed {
            // No grouping in a failed city (its arrays may be out of step): every building
            // drawn, at any distance.
            self.all_detailed = true;
            for instance in std::sync::Arc::make_mut(&mut self.instances).iter_mut() {
                instance.lod = ALWAYS_DETAILED;
            }
            std::sync::Arc::make_mut(&mut self.grouped_boxes).clear();
            self.instances_dirty = true;
            self.grouped_stale = true;
        }
        let shift = self.origin - self.instances_origin;
        if shift != Vec3::ZERO {
            for instance in std::sync::Arc::make_mut(&mut self.instances).iter_mut() {
                instance.centre_x += shift.x;
                instance.centre_z += shift.z;
            }
            self.instances_origin = self.origin;
            self.instances_dirty = true;
        }
        if let Some(index) = self.highlighted.take() {
            // Hover no longer reaches it: the highlighted building takes its colour back.
            let colour = self.target_colours.get(index).copied();
            if let Some(slot) = self.colours.get_mut(index) {
                *slot = colour.unwrap_or(ColourKey::Stub);
            }
            self.greyed_drawn = false;
        }
        self.recolour_greyed(palette);
    }
}
