//! Where a city's moved items glide from when its plan moves them: buildings from where they
//! are drawn, districts and blocks from their package's or class's first rectangle as drawn.

use bevy::prelude::*;
use highrise_layout::Rect;

use super::{City, Glide};

/// Where each rectangle of a new plan glides from: given the rectangles as drawn (owner
/// package or class, rectangle) and, per new rectangle, its owner and whether it is the owner's
/// first, the rectangle the owner's first one was drawn at — for first rectangles only (annexes
/// and newcomers appear in place).
fn glide_sources(
    shown: &[(u32, Rect)],
    plan: impl Iterator<Item = (u32, bool)>,
) -> Vec<Option<Rect>> {
    let mut first_shown = std::collections::HashMap::new();
    for &(owner, rect) in shown {
        first_shown.entry(owner).or_insert(rect);
    }
    plan.map(|(owner, first)| first.then(|| first_shown.get(&owner).copied()).flatten())
        .collect()
}

impl City {
    /// The plan moved existing items: each starts gliding from where it is drawn now.
    pub(super) fn begin_glide(&mut self) {
        let Some(layout) = self.layout.as_ref() else {
            return;
        };
        let origin = self.instances_origin;
        let from_buildings = self
            .instances
            .iter()
            .map(|i| Vec2::new(i.centre_x - origin.x, i.centre_z - origin.z))
            .collect();
        // Districts and blocks are matched by package and class (the plan may renumber them).
        let from_districts = glide_sources(
            &self.shown_districts,
            layout.districts().iter().enumerate().map(|(index, d)| {
                let first = layout.packages()[d.package as usize].districts.first();
                (d.package, first == Some(&(index as u32)))
            }),
        );
        let from_blocks = glide_sources(
            &self.shown_blocks,
            layout.blocks().iter().enumerate().map(|(index, b)| {
                let first = layout.classes()[b.class as usize].blocks.first();
                (b.class, first == Some(&(index as u32)))
            }),
        );
        // Where the plan had each building (buildings placed since keep their plots).
        let centres: Vec<Vec2> = layout
            .buildings()
            .iter()
            .map(|b| {
                let c = b.footprint.center();
                Vec2::new(c.x, c.z)
            })
            .collect();
        let from_plan = std::mem::replace(&mut self.plan_centres, centres);
        self.glide = Some(Glide {
            started_s: None,
            just_started: true,
            from_buildings,
            from_plan,
            from_origin: origin,
            from_districts,
            from_blocks,
        });
    }
}
