//! Diving into a package: framed, the rest dimmed, hot spots from inside it, and back out.

use bevy::prelude::*;
use highrise_viewer::viewer::city::{grey, Cities, CityKey};
use highrise_viewer::viewer::focus::{package_trail, parent_package, FocusPackage, FocusPlugin};
use highrise_viewer::viewer::labels::SceneLabels;

use crate::support::*;

fn methods_of(app: &App, buildings: impl Iterator<Item = u32>) -> Vec<u32> {
    let cities = app.world().resource::<Cities>();
    let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
    buildings
        .map(|b| layout.buildings()[b as usize].method_id)
        .collect()
}

#[test]
fn focusing_a_package_frames_it_dims_the_rest_and_names_its_own_hot_spots() {
    use highrise_viewer::viewer::camera::MainCamera;
    use smooth_bevy_cameras::LookTransform;
    let mut app = app_with_camera_and_labels();
    app.add_plugins(FocusPlugin { interactive: false });
    let defs = six_packages(); // main.gameN.ClassNxM.methodK: 12 methods per package
    let count = defs.len();
    let mut methods = vec![stats(0.001, 1, 1); count];
    // The hottest is in game0; game2 (methods 24..36) has two warm ones.
    for (method_id, elevation) in [(3u32, 0.8f32), (26, 0.3), (31, 0.2)] {
        methods[method_id as usize] = stats(elevation, 1, 10);
    }
    accept(&mut app, report(defs, methods, 1));
    settle(&mut app);
    let whole_target = look_target(&mut app);

    app.world_mut().send_event(FocusPackage {
        city: CityKey::Session(1),
        package: Some("main.game2".into()),
    });
    settle(&mut app);
    let cities = app.world().resource::<Cities>();
    let city = &cities[CityKey::Session(1)];
    let layout = city.layout.as_ref().expect("plan");
    let dimmed = city.dimmed().to_vec();
    assert_eq!(dimmed.len(), count);
    for (index, building) in layout.buildings().iter().enumerate() {
        let inside = (24..36).contains(&building.method_id);
        assert_eq!(dimmed[index], !inside, "method {}", building.method_id);
    }
    // Dimmed buildings are drawn in grey, the package's in their colours.
    let drawn = buildings(&mut app);
    for (index, instance) in drawn.iter().enumerate() {
        let [r, g, b, _] = instance.rgba;
        if dimmed[index] {
            assert!(r == g && g == b, "grey outside: {:?}", instance.rgba);
        } else {
            assert_ne!(instance.rgba, grey(instance.rgba), "in colour inside");
        }
    }
    // The package's block lots keep their colour; the others' go dark.
    {
        use highrise_viewer::viewer::city::Palette;
        let dimmed_material = app.world().resource::<Palette>().block_dimmed.clone();
        let cities = app.world().resource::<Cities>();
        let city = &cities[CityKey::Session(1)];
        let layout = city.layout.as_ref().expect("plan");
        let entities = city.block_entities.clone();
        let expected: Vec<bool> = layout
            .blocks()
            .iter()
            .map(|b| {
                layout.packages()[layout.classes()[b.class as usize].package as usize].path
                    != "main.game2"
            })
            .collect();
        let mut query = app.world_mut().query::<&MeshMaterial3d<StandardMaterial>>();
        for (entity, dark) in entities.iter().zip(expected) {
            let material = query.get(app.world(), *entity).expect("a block slab");
            assert_eq!(material.0 == dimmed_material, dark);
        }
    }
    // The camera looks at the package's district, closer than at the whole city.
    let rect = {
        let cities = app.world().resource::<Cities>();
        let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
        let package = layout
            .packages()
            .iter()
            .find(|p| p.path == "main.game2")
            .expect("package");
        layout.districts()[package.districts[0] as usize].rect
    };
    let target =
        look_target(&mut app) - app.world().resource::<Cities>()[CityKey::Session(1)].origin;
    assert!(
        target.x > rect.min_x
            && target.x < rect.max_x
            && target.z > rect.min_z
            && target.z < rect.max_z,
        "looks at {target:?}, inside {rect:?} (whole city: {whole_target:?})"
    );
    // The hot spots named are the package's own.
    let hot = app.world().resource::<SceneLabels>().hot_spots.clone();
    let named = methods_of(&app, hot.iter().map(|h| h.building));
    assert_eq!(named, vec![26, 31], "{hot:#?}");

    // Breadcrumbs and one level out.
    let cities = app.world().resource::<Cities>();
    let layout = cities[CityKey::Session(1)].layout.as_ref().expect("plan");
    let trail = package_trail(layout, "main.game2");
    assert_eq!(trail.last().map(String::as_str), Some("main.game2"));
    let parent = parent_package(layout, "main.game2");
    assert!(parent
        .as_deref()
        .is_none_or(|p| "main.game2".starts_with(p)));

    // Back to the whole city: nothing dimmed, the hottest of all named again.
    app.world_mut().send_event(FocusPackage {
        city: CityKey::Session(1),
        package: None,
    });
    settle(&mut app);
    assert!(app.world().resource::<Cities>()[CityKey::Session(1)]
        .dimmed()
        .is_empty());
    let hot = app.world().resource::<SceneLabels>().hot_spots.clone();
    assert_eq!(
        methods_of(&app, hot.iter().map(|h| h.building)),
        vec![3, 26, 31]
    );

    fn look_target(app: &mut App) -> Vec3 {
        let mut query = app
            .world_mut()
            .query_filtered::<&LookTransform, With<MainCamera>>();
        query.single(app.world()).expect("one camera").target
    }
}
