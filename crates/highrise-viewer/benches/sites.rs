//! CPU time of the allocation-site view with a 50k-node tree (goal ≤ 8 ms per frame): the
//! layout (`site_tree`, once per tree change, at most twice a second) and one egui frame of the
//! window — tree culled to the viewport, class list, hover popup — with its tessellation, in a
//! headless egui context (no GPU).
//!
//! Run: `cargo bench -p highrise-viewer --bench sites`

use std::collections::BTreeSet;

use bevy_egui::egui;
use criterion::{criterion_group, criterion_main, Criterion};
use highrise_aggregate::{Amount, ContextNode, ContextTree};
use highrise_layout::synthetic::SplitMix64;
use highrise_viewer::viewer::sites::{site_tree, SitesShow};
use highrise_viewer::viewer::ui::{sites_window, SiteLabels, SitesCache, SitesView};

/// A context tree of `fanout`-way branching `depth` levels deep (6, 6: 55 986 contexts), every
/// leaf creating one to three of 60 classes, inner nodes some too.
fn synthetic_tree(fanout: usize, depth: u16, seed: u64) -> ContextTree {
    let mut random = SplitMix64::new(seed);
    let mut nodes = vec![ContextNode {
        method_id: u32::MAX,
        depth: 0,
        calls: 0,
        time_ns: 0,
        direct: 0..0,
        subtree_len: 1,
    }];
    let mut amounts = Vec::new();
    fn grow(
        nodes: &mut Vec<ContextNode>,
        amounts: &mut Vec<(u32, Amount)>,
        random: &mut SplitMix64,
        level: u16,
        fanout: usize,
        depth: u16,
    ) {
        for _ in 0..fanout {
            let index = nodes.len();
            let start = amounts.len() as u32;
            let creates = if level == depth {
                1 + random.next_u64() % 3
            } else {
                random.next_u64() % 2
            };
            let mut classes: Vec<u32> = (0..creates)
                .map(|_| (random.next_u64() % 60) as u32)
                .collect();
            classes.sort_unstable();
            classes.dedup();
            for class_id in classes {
                let count = 1 + random.next_u64() % 1000;
                amounts.push((
                    class_id,
                    Amount {
                        count,
                        bytes: count * 32,
                        ..Amount::default()
                    },
                ));
            }
            nodes.push(ContextNode {
                method_id: (random.next_u64() % 5_000) as u32,
                depth: level,
                calls: 1 + random.next_u64() % 10_000,
                time_ns: random.next_u64() % 1_000_000_000,
                direct: start..amounts.len() as u32,
                subtree_len: 1,
            });
            if level < depth {
                grow(nodes, amounts, random, level + 1, fanout, depth);
            }
            nodes[index].subtree_len = (nodes.len() - index) as u32;
        }
    }
    grow(&mut nodes, &mut amounts, &mut random, 1, fanout, depth);
    nodes[0].subtree_len = nodes.len() as u32;
    ContextTree {
        nodes,
        amounts,
        capped_calls: 0,
        max_nodes: 1 << 20,
        generation: 1,
    }
}

fn input(pointer: egui::Pos2) -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 800.0),
        )),
        events: vec![egui::Event::PointerMoved(pointer)],
        ..egui::RawInput::default()
    }
}

fn bench_sites(c: &mut Criterion) {
    let tree = synthetic_tree(6, 6, 42);
    let excluded = BTreeSet::new();
    let laid_out = site_tree(&tree, SitesShow::Allocations, &excluded);
    println!(
        "sites bench: {} contexts, {} shown, {} rows, {} classes",
        tree.nodes.len() - 1,
        laid_out.nodes.len(),
        laid_out.rows,
        laid_out.classes.len()
    );
    assert!(laid_out.nodes.len() >= 50_000);
    c.bench_function("sites_layout_50k_contexts", |b| {
        b.iter(|| site_tree(&tree, SitesShow::Allocations, &excluded));
    });
    let mut state = SitesView::opened(true)
        .with_cache(SitesCache::from_tree(laid_out, SiteLabels::with_heat()));
    let ctx = egui::Context::default();
    // The pointer over the first node: hover highlight and popup every frame.
    let pointer = egui::pos2(400.0, 170.0);
    for _ in 0..3 {
        let _ = ctx.run(input(pointer), |ctx| {
            sites_window(ctx, &mut state, "bench");
        });
    }
    c.bench_function("sites_frame_50k_contexts", |b| {
        b.iter(|| {
            let output = ctx.run(input(pointer), |ctx| {
                sites_window(ctx, &mut state, "bench");
            });
            ctx.tessellate(output.shapes, output.pixels_per_point)
        });
    });
    // A class highlighted (every shown node checks whether it creates the class).
    state.pinned_class = Some(7);
    c.bench_function("sites_frame_50k_contexts_class_pinned", |b| {
        b.iter(|| {
            let output = ctx.run(input(pointer), |ctx| {
                sites_window(ctx, &mut state, "bench");
            });
            ctx.tessellate(output.shapes, output.pixels_per_point)
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_sites
}
criterion_main!(benches);
