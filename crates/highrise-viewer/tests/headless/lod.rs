//! Level of detail: each block's grouped box (as tall as its tallest building, in its colour),
//! where each building's level of detail is decided (its block's centre), hover on a grouped
//! block, and `--lod off`.

use bevy::prelude::*;
use highrise_layout::HitTarget;
use highrise_viewer::viewer::city::{Cities, CityKey};
use highrise_viewer::viewer::hover::pick;
use highrise_viewer::viewer::instancing::{
    BuildingInstance, BuildingInstances, DetailView, LevelOfDetail, ALWAYS_DETAILED, GROUPED_ALPHA,
};

use crate::support::*;

/// The grouped boxes as handed to session 1's draw.
fn grouped_boxes(app: &mut App) -> Vec<BuildingInstance> {
    let entity = app.world().resource::<Cities>()[CityKey::Session(1)]
        .grouped_entity
        .expect("a grouped draw");
    let mut query = app.world_mut().query::<&BuildingInstances>();
    query
        .get(app.world(), entity)
        .expect("a draw")
        .current()
        .to_vec()
}

/// A view from `eye` toward `target`, 800 px tall, 45° vertical field of view.
fn view_from(eye: Vec3, target: Vec3) -> DetailView {
    let projection = Mat4::perspective_infinite_reverse_rh(std::f32::consts::FRAC_PI_4, 1.6, 0.1);
    let eye = GlobalTransform::from(Transform::from_translation(eye).looking_at(target, Vec3::Y));
    DetailView::new(projection, &eye, 800.0)
}

fn unpack(key: u32) -> Vec2 {
    let half = |bits: u32| half::f16::from_bits(bits as u16).to_f32();
    Vec2::new(half(key & 0xffff), half(key >> 16))
}

#[test]
fn each_block_is_one_box_as_tall_as_its_tallest_building_and_hover_names_that_one() {
    let mut app = app();
    let defs = six_packages(); // 18 classes of 4 methods
    let mut methods = vec![stats(0.05, 1, 1); defs.len()];
    methods[6] = stats(0.8, 1, 10); // Class0x1.method2
    methods[13] = stats(0.4, 1, 10); // Class1x0.method1
    accept(&mut app, report(defs, methods, 1));
    settle(&mut app);
    let drawn = buildings(&mut app);
    let boxes = grouped_boxes(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("plan");
    assert_eq!(boxes.len(), layout.blocks().len(), "one box per block");
    for (index, (block, group)) in layout.blocks().iter().zip(&boxes).enumerate() {
        let members: Vec<usize> = (0..drawn.len())
            .filter(|&b| layout.buildings()[b].block as usize == index)
            .collect();
        let tallest = members
            .iter()
            .copied()
            .max_by(|&a, &b| drawn[a].height.total_cmp(&drawn[b].height))
            .expect("a block with buildings");
        assert_eq!(group.height, drawn[tallest].height, "block {index}");
        assert_eq!(group.rgba[..3], drawn[tallest].rgba[..3], "its colour");
        assert_eq!(group.rgba[3], GROUPED_ALPHA);
        assert_eq!(group.base_y, block.top_height_wu);
        // The box covers exactly its buildings' plots, inset like a plot.
        for &member in &members {
            let b = &drawn[member];
            assert!((b.centre_x - group.centre_x).abs() <= (group.width - b.width) / 2.0 + 1e-4);
            assert!((b.centre_z - group.centre_z).abs() <= (group.depth - b.depth) / 2.0 + 1e-4);
        }
        // Each building decides its level of detail at its block's centre.
        let centre = block.rect.center() + city.origin;
        for &member in &members {
            let b = &drawn[member];
            let at = Vec2::new(b.centre_x, b.centre_z) + unpack(b.lod);
            assert!(
                at.distance(Vec2::new(centre.x, centre.z)) < 0.01,
                "{at} vs {centre}"
            );
        }
        assert_eq!(unpack(group.lod), Vec2::ZERO);
    }
    // The hottest method's block from far off: one box, and hovering any part of it names
    // the hottest method.
    let hot = layout.building_of(6).expect("placed") as usize;
    let block = layout.buildings()[hot].block;
    let neighbour = (0..drawn.len())
        .find(|&b| b != hot && layout.buildings()[b].block == block)
        .expect("a neighbour in the class");
    let above = |building: usize| {
        let c = layout.buildings()[building].footprint.center() + city.origin;
        (c + Vec3::Y * 2000.0, c)
    };
    let (eye, target) = above(neighbour);
    let far = view_from(eye + Vec3::Z * 0.01, target);
    assert!(
        far.block_grouped(city, block),
        "a plot spans {} px",
        far.px_per_wu(target)
    );
    let hovered = pick(cities, eye, Vec3::NEG_Y, Some(&far));
    assert!(
        matches!(
            hovered.target,
            Some(HitTarget::Building { method_id: 6, .. })
        ),
        "{hovered:?}"
    );
    // Close by, the same ray names the neighbour itself.
    let near = view_from(target + Vec3::new(0.0, 20.0, 0.01), target);
    assert!(!near.block_grouped(city, block));
    let hovered = pick(cities, eye, Vec3::NEG_Y, Some(&near));
    let neighbour_id = layout.buildings()[neighbour].method_id;
    assert!(
        matches!(hovered.target, Some(HitTarget::Building { method_id, .. }) if method_id == neighbour_id),
        "{hovered:?}"
    );

    // Level of detail off: no boxes, every building drawn at any distance.
    app.insert_resource(LevelOfDetail::Off);
    settle(&mut app);
    assert!(grouped_boxes(&mut app).is_empty());
    assert!(buildings(&mut app).iter().all(|b| b.lod == ALWAYS_DETAILED));
    let cities = app.world().resource::<Cities>();
    assert!(!far.block_grouped(&cities[CityKey::Session(1)], block));
    app.insert_resource(LevelOfDetail::Auto);
    settle(&mut app);
    assert_eq!(grouped_boxes(&mut app).len(), boxes.len());
}

/// Whether a Vulkan driver is installed (lavapipe in CI: `scripts/install-render-deps.sh`).
fn can_render() -> bool {
    std::fs::read_dir("/usr/share/vulkan/icd.d").is_ok_and(|mut dir| dir.next().is_some())
}

/// Renders `app` offscreen and returns the picture's RGBA bytes.
fn picture(app: &mut App) -> Vec<u8> {
    use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
    use highrise_viewer::viewer::offscreen::OffscreenTarget;
    let taken: std::sync::Arc<std::sync::Mutex<Option<Vec<u8>>>> = Default::default();
    let slot = taken.clone();
    let target = app.world().resource::<OffscreenTarget>().0.clone();
    app.world_mut().spawn(Screenshot::image(target)).observe(
        move |trigger: Trigger<'_, ScreenshotCaptured>| {
            *slot.lock().expect("slot") = trigger.event().0.data.clone();
        },
    );
    for _ in 0..300 {
        app.update();
        if let Some(bytes) = taken.lock().expect("slot").take() {
            return bytes;
        }
    }
    panic!("no screenshot");
}

/// Warm (busy) pixels: the heat ramp's yellow → red.
fn warm_pixels(rgba: &[u8]) -> usize {
    rgba.chunks_exact(4)
        .filter(|p| {
            let [r, _, b] = [p[0], p[1], p[2]].map(i32::from);
            r > 150 && r - b > 70
        })
        .count()
}

/// On the GPU (lavapipe here): a 20k-method city at its default framing draws the hottest
/// method's class as one warm box, many times wider than the lone tower drawn with `--lod off`.
#[test]
fn a_far_class_is_drawn_as_one_box_by_the_gpu() {
    use highrise_viewer::viewer::offscreen::offscreen_app;
    use highrise_viewer::viewer::sessions::{accept_report, Sessions};
    if !can_render() {
        eprintln!("skipped: no Vulkan driver");
        return;
    }
    // 20 packages × 50 classes × 20 methods; one hot method, the rest barely running.
    let packages: Vec<String> = (0..20).map(|p| format!("big.p{p}")).collect();
    let defs = grid(&packages, 50, 20, |_, c| format!("C{c}"));
    let hot = 10 * 1000 + 25 * 20 + 7;
    let mut methods = vec![stats(0.002, 1, 1); defs.len()];
    methods[hot] = stats(0.9, 1, 100);
    let mut app = offscreen_app(640, 400, None, Vec::new());
    while app.plugins_state() == bevy::app::PluginsState::Adding {
        bevy::tasks::tick_global_task_pools_on_main_thread();
    }
    app.finish();
    app.cleanup();
    accept_report(
        &mut app.world_mut().resource_mut::<Sessions>(),
        report(defs, methods, 1),
    );
    for _ in 0..120 {
        app.update();
    }
    let grouped = warm_pixels(&picture(&mut app));
    app.insert_resource(LevelOfDetail::Off);
    for _ in 0..20 {
        app.update();
    }
    let detailed = warm_pixels(&picture(&mut app));
    eprintln!("warm pixels: {grouped} grouped, {detailed} with every building");
    assert!(
        grouped > 3 * detailed.max(10),
        "the hot class as one box: {grouped} warm pixels, its lone tower {detailed}"
    );
}
