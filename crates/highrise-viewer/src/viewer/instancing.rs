//! Buildings in one instanced draw per city: the city keeps a flat array of per-building
//! instances (position, height, footprint, colour) and the GPU draws the shared cube once per
//! instance. No entity, transform or material per building: a height change is a write into
//! that array, and the array goes to the GPU only when something changed.
//!
//! The render side follows Bevy 0.16's `custom_shader_instancing` example (a specialised mesh
//! pipeline with a second, per-instance vertex buffer); the shader (`buildings.wgsl`, embedded)
//! places and lights each box itself.
//!
//! Level of detail happens in the shader too. A city draws its buildings and, beside them, one
//! box per block (its buildings' footprints, as tall as the tallest: [`GROUPED_ALPHA`] marks
//! it). Each building carries the offset to its block's centre ([`BuildingInstance::lod`]);
//! where a plot there spans fewer than [`DETAIL_PLOT_PX`] pixels on screen, the block's box is
//! drawn and its buildings are not, so a far-off city reads as its classes rather than a moiré
//! of one-pixel towers. Both sides decide at the same point, so a block is always one or the
//! other. [`DetailView`] makes the same decision on the CPU (hover, names).

use std::sync::{Arc, Weak};

use bevy::core_pipeline::core_3d::Transparent3d;
use bevy::ecs::query::QueryItem;
use bevy::ecs::system::{lifetimeless::*, SystemParamItem};
use bevy::pbr::{
    MeshPipeline, MeshPipelineKey, RenderMeshInstances, SetMeshBindGroup, SetMeshViewBindGroup,
};
use bevy::prelude::*;
use bevy::render::extract_component::{ExtractComponent, ExtractComponentPlugin};
use bevy::render::mesh::allocator::MeshAllocator;
use bevy::render::mesh::{MeshVertexBufferLayoutRef, RenderMesh, RenderMeshBufferInfo};
use bevy::render::render_asset::RenderAssets;
use bevy::render::render_phase::{
    AddRenderCommand, DrawFunctions, PhaseItem, PhaseItemExtraIndex, RenderCommand,
    RenderCommandResult, SetItemPipeline, TrackedRenderPass, ViewSortedRenderPhases,
};
use bevy::render::render_resource::*;
use bevy::render::renderer::RenderDevice;
use bevy::render::sync_world::MainEntity;
use bevy::render::view::ExtractedView;
use bevy::render::{Render, RenderApp, RenderSet};

/// One building on the GPU, 32 bytes: the per-instance vertex attributes of
/// `buildings.wgsl` (`i_place` at location 3, `i_size` at 4, `i_colour` at 5), field by field.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BuildingInstance {
    /// World-space centre of the footprint, x.
    pub centre_x: f32,
    /// World-space height the building stands on (its block's top).
    pub base_y: f32,
    /// World-space centre of the footprint, z.
    pub centre_z: f32,
    /// Height of the box, world units.
    pub height: f32,
    /// Footprint width (x), world units.
    pub width: f32,
    /// Footprint depth (z), world units.
    pub depth: f32,
    /// The colour as linear-light RGBA bytes (read as `Unorm8x4`); alpha [`GROUPED_ALPHA`]
    /// marks a block's grouped box, any other alpha a building.
    pub rgba: [u8; 4],
    /// Where the level of detail is decided: the offset (x, z) from the footprint's centre to
    /// its block's centre as two f16 ([`lod_key`]), or [`ALWAYS_DETAILED`].
    pub lod: u32,
}

/// A plot (1 world unit) narrower than this on screen, pixels, at its block's centre: the
/// block is drawn as one box.
pub const DETAIL_PLOT_PX: f32 = 5.0;

/// [`BuildingInstance::lod`] of a building drawn at any distance (level of detail off).
pub const ALWAYS_DETAILED: u32 = u32::MAX;

/// The alpha byte of a block's grouped box (buildings are opaque: 255).
pub const GROUPED_ALPHA: u8 = 0;

/// Whether far blocks are drawn as one box each (the panel and `--lod` switch it).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LevelOfDetail {
    /// A block whose plots span fewer than [`DETAIL_PLOT_PX`] pixels is one box.
    #[default]
    Auto,
    /// Every building at any distance.
    Off,
}

/// [`BuildingInstance::lod`] for a footprint whose block's centre lies `offset_x`, `offset_z`
/// world units away.
pub fn lod_key(offset_x: f32, offset_z: f32) -> u32 {
    let bits = |value: f32| u32::from(half::f16::from_f32(value).to_bits());
    bits(offset_x) | (bits(offset_z) << 16)
}

/// The level-of-detail decision on the CPU, as the shader makes it for the view it was taken
/// from: how many pixels a world unit spans at a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetailView {
    pub clip_from_world: Mat4,
    /// Half the viewport's height, pixels, times the projection's vertical scale.
    pub px_per_unit_clip: f32,
}

impl DetailView {
    /// The view of a camera with `clip_from_view` at `world_from_view`, `viewport_height_px`
    /// tall.
    pub fn new(
        clip_from_view: Mat4,
        world_from_view: &GlobalTransform,
        viewport_height_px: f32,
    ) -> Self {
        Self {
            clip_from_world: clip_from_view * world_from_view.compute_matrix().inverse(),
            px_per_unit_clip: clip_from_view.y_axis.y * 0.5 * viewport_height_px,
        }
    }

    /// Pixels one world unit spans at `at` (as large as can be for a point at or behind the
    /// eye).
    pub fn px_per_wu(&self, at: Vec3) -> f32 {
        let w = (self.clip_from_world * at.extend(1.0)).w;
        self.px_per_unit_clip / w.max(1e-4)
    }

    /// Whether a block centred at `at` is drawn as one box.
    pub fn grouped(&self, at: Vec3) -> bool {
        self.px_per_wu(at) < DETAIL_PLOT_PX
    }

    /// Whether block `block` of `city` is drawn as one box in this view.
    pub fn block_grouped(&self, city: &crate::viewer::city::City, block: u32) -> bool {
        let Some(b) = city
            .layout
            .as_ref()
            .filter(|_| !city.all_detailed)
            .and_then(|layout| layout.blocks().get(block as usize))
        else {
            return false;
        };
        let centre = b.rect.center();
        self.grouped(Vec3::new(centre.x, b.top_height_wu, centre.z) + city.origin)
    }
}

// The shader reads 32 bytes an instance.
const _: () = assert!(size_of::<BuildingInstance>() == 32);

/// Makes an instance.
pub fn building_instance(
    centre_x: f32,
    base_y: f32,
    centre_z: f32,
    height: f32,
    width: f32,
    depth: f32,
    rgba: [u8; 4],
) -> BuildingInstance {
    BuildingInstance {
        centre_x,
        base_y,
        centre_z,
        height,
        width,
        depth,
        rgba,
        lod: ALWAYS_DETAILED,
    }
}

/// The colour bytes of an instance.
pub fn instance_rgba(instance: &BuildingInstance) -> [u8; 4] {
    instance.rgba
}

/// A city's buildings as the GPU draws them: a weak handle on the city's instances
/// ([`crate::viewer::city::City::instances`]), replaced when they change. The render world
/// takes a strong one at extraction ([`ExtractedInstances`]) and drops it once uploaded.
#[derive(Component, Debug, Clone, Default)]
pub struct BuildingInstances {
    pub instances: Weak<Vec<BuildingInstance>>,
    /// Bumped on every change; the render world uploads again when it differs.
    pub generation: u64,
}

impl BuildingInstances {
    /// Hands `instances` to the draw: a weak handle (the render world takes its own `Arc` at
    /// extraction and lets go once uploaded, so the next writes need no copy).
    pub fn show(&mut self, instances: &Arc<Vec<BuildingInstance>>) {
        self.instances = Arc::downgrade(instances);
        self.generation += 1;
    }

    /// The instances as last handed over (empty if the city has let go of them since).
    pub fn current(&self) -> Arc<Vec<BuildingInstance>> {
        self.instances.upgrade().unwrap_or_default()
    }
}

/// Render world: the instances to upload, held only until they are.
#[derive(Component, Debug, Clone)]
pub struct ExtractedInstances {
    instances: Arc<Vec<BuildingInstance>>,
    generation: u64,
}

impl ExtractComponent for BuildingInstances {
    type QueryData = &'static BuildingInstances;
    type QueryFilter = Changed<BuildingInstances>;
    type Out = ExtractedInstances;

    fn extract_component(item: QueryItem<'_, Self::QueryData>) -> Option<ExtractedInstances> {
        Some(ExtractedInstances {
            instances: item.instances.upgrade()?,
            generation: item.generation,
        })
    }
}

/// The shader, embedded in the binary (its `DETAIL_PLOT_PX` is filled in at load).
const SHADER_SOURCE: &str = include_str!("buildings.wgsl");

/// Adds the instanced building draw to the render app (needs the render plugins).
#[derive(Debug)]
pub struct InstancingPlugin;

impl Plugin for InstancingPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(ExtractComponentPlugin::<BuildingInstances>::default());
        let Some(render_app) = app.get_sub_app_mut(RenderApp) else {
            return;
        };
        render_app
            .add_render_command::<Transparent3d, DrawBuildings>()
            .init_resource::<SpecializedMeshPipelines<BuildingPipeline>>()
            .add_systems(
                Render,
                (
                    queue_buildings.in_set(RenderSet::QueueMeshes),
                    prepare_instance_buffers.in_set(RenderSet::PrepareResources),
                ),
            );
    }

    fn finish(&self, app: &mut App) {
        let shader = app
            .world_mut()
            .resource_mut::<Assets<Shader>>()
            .add(Shader::from_wgsl(
                SHADER_SOURCE.replace("{DETAIL_PLOT_PX}", &format!("{DETAIL_PLOT_PX:?}")),
                "highrise/buildings.wgsl",
            ));
        if let Some(render_app) = app.get_sub_app_mut(RenderApp) {
            render_app.insert_resource(BuildingShader(shader));
            render_app.init_resource::<BuildingPipeline>();
        }
    }
}

#[derive(Resource)]
struct BuildingShader(Handle<Shader>);

#[allow(clippy::too_many_arguments)] // a Bevy system: each parameter is one resource or query
fn queue_buildings(
    draw_functions: Res<DrawFunctions<Transparent3d>>,
    pipeline: Res<BuildingPipeline>,
    mut pipelines: ResMut<SpecializedMeshPipelines<BuildingPipeline>>,
    pipeline_cache: Res<PipelineCache>,
    meshes: Res<RenderAssets<RenderMesh>>,
    render_mesh_instances: Res<RenderMeshInstances>,
    cities: Query<(Entity, &MainEntity), With<ExtractedInstances>>,
    mut phases: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    views: Query<(&ExtractedView, &Msaa)>,
) {
    let draw = draw_functions.read().id::<DrawBuildings>();
    for (view, msaa) in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let view_key = MeshPipelineKey::from_msaa_samples(msaa.samples())
            | MeshPipelineKey::from_hdr(view.hdr);
        let rangefinder = view.rangefinder3d();
        for (entity, main_entity) in &cities {
            // Present only while the city is visible.
            let Some(mesh_instance) = render_mesh_instances.render_mesh_queue_data(*main_entity)
            else {
                continue;
            };
            let Some(mesh) = meshes.get(mesh_instance.mesh_asset_id) else {
                continue;
            };
            let key =
                view_key | MeshPipelineKey::from_primitive_topology(mesh.primitive_topology());
            let Ok(pipeline_id) =
                pipelines.specialize(&pipeline_cache, &pipeline, key, &mesh.layout)
            else {
                continue;
            };
            phase.add(Transparent3d {
                entity: (entity, *main_entity),
                pipeline: pipeline_id,
                draw_function: draw,
                distance: rangefinder.distance_translation(&mesh_instance.translation),
                batch_range: 0..1,
                extra_index: PhaseItemExtraIndex::None,
                indexed: true,
            });
        }
    }
}

/// A city's instances on the GPU.
#[derive(Component)]
struct InstanceBuffer {
    buffer: Buffer,
    length: usize,
    generation: u64,
}

fn prepare_instance_buffers(
    mut commands: Commands,
    mut cities: Query<(Entity, &mut ExtractedInstances, Option<&InstanceBuffer>)>,
    render_device: Res<RenderDevice>,
) {
    for (entity, mut instances, uploaded) in &mut cities {
        if uploaded.is_some_and(|buffer| buffer.generation == instances.generation) {
            continue;
        }
        if instances.instances.is_empty() {
            commands.entity(entity).remove::<InstanceBuffer>();
            continue;
        }
        let buffer = render_device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("highrise building instances"),
            contents: bytemuck::cast_slice(instances.instances.as_slice()),
            usage: BufferUsages::VERTEX | BufferUsages::COPY_DST,
        });
        commands.entity(entity).insert(InstanceBuffer {
            buffer,
            length: instances.instances.len(),
            generation: instances.generation,
        });
        // Uploaded: let the city write its instances again without copying them.
        instances.instances = Arc::default();
    }
}

#[derive(Resource)]
struct BuildingPipeline {
    shader: Handle<Shader>,
    mesh_pipeline: MeshPipeline,
}

impl FromWorld for BuildingPipeline {
    fn from_world(world: &mut World) -> Self {
        Self {
            shader: world.resource::<BuildingShader>().0.clone(),
            mesh_pipeline: world.resource::<MeshPipeline>().clone(),
        }
    }
}

impl SpecializedMeshPipeline for BuildingPipeline {
    type Key = MeshPipelineKey;

    fn specialize(
        &self,
        key: Self::Key,
        layout: &MeshVertexBufferLayoutRef,
    ) -> Result<RenderPipelineDescriptor, SpecializedMeshPipelineError> {
        let mut descriptor = self.mesh_pipeline.specialize(key, layout)?;
        descriptor.vertex.shader = self.shader.clone();
        descriptor.vertex.buffers.push(VertexBufferLayout {
            array_stride: size_of::<BuildingInstance>() as u64,
            step_mode: VertexStepMode::Instance,
            // Locations 0–2 are the cube's position, normal and uv.
            attributes: vec![
                // centre x, base y, centre z, height
                VertexAttribute {
                    format: VertexFormat::Float32x4,
                    offset: std::mem::offset_of!(BuildingInstance, centre_x) as u64,
                    shader_location: 3,
                },
                // width, depth
                VertexAttribute {
                    format: VertexFormat::Float32x2,
                    offset: std::mem::offset_of!(BuildingInstance, width) as u64,
                    shader_location: 4,
                },
                VertexAttribute {
                    format: VertexFormat::Unorm8x4,
                    offset: std::mem::offset_of!(BuildingInstance, rgba) as u64,
                    shader_location: 5,
                },
                VertexAttribute {
                    format: VertexFormat::Uint32,
                    offset: std::mem::offset_of!(BuildingInstance, lod) as u64,
                    shader_location: 6,
                },
            ],
        });
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader = self.shader.clone();
        }
        Ok(descriptor)
    }
}

type DrawBuildings = (
    SetItemPipeline,
    SetMeshViewBindGroup<0>,
    SetMeshBindGroup<1>,
    DrawInstanced,
);

struct DrawInstanced;

impl<P: PhaseItem> RenderCommand<P> for DrawInstanced {
    type Param = (
        SRes<RenderAssets<RenderMesh>>,
        SRes<RenderMeshInstances>,
        SRes<MeshAllocator>,
    );
    type ViewQuery = ();
    type ItemQuery = Read<InstanceBuffer>;

    #[inline]
    fn render<'w>(
        item: &P,
        _view: (),
        instance_buffer: Option<&'w InstanceBuffer>,
        (meshes, render_mesh_instances, mesh_allocator): SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let mesh_allocator = mesh_allocator.into_inner();
        let Some(mesh_instance) = render_mesh_instances.render_mesh_queue_data(item.main_entity())
        else {
            return RenderCommandResult::Skip;
        };
        let Some(gpu_mesh) = meshes.into_inner().get(mesh_instance.mesh_asset_id) else {
            return RenderCommandResult::Skip;
        };
        let Some(instance_buffer) = instance_buffer else {
            return RenderCommandResult::Skip;
        };
        let Some(vertex_slice) = mesh_allocator.mesh_vertex_slice(&mesh_instance.mesh_asset_id)
        else {
            return RenderCommandResult::Skip;
        };
        pass.set_vertex_buffer(0, vertex_slice.buffer.slice(..));
        pass.set_vertex_buffer(1, instance_buffer.buffer.slice(..));
        let instances = 0..instance_buffer.length as u32;
        match &gpu_mesh.buffer_info {
            RenderMeshBufferInfo::Indexed {
                index_format,
                count,
            } => {
                let Some(index_slice) =
                    mesh_allocator.mesh_index_slice(&mesh_instance.mesh_asset_id)
                else {
                    return RenderCommandResult::Skip;
                };
                pass.set_index_buffer(index_slice.buffer.slice(..), 0, *index_format);
                pass.draw_indexed(
                    index_slice.range.start..(index_slice.range.start + count),
                    vertex_slice.range.start as i32,
                    instances,
                );
            }
            RenderMeshBufferInfo::NonIndexed => {
                pass.draw(vertex_slice.range, instances);
            }
        }
        RenderCommandResult::Success
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU gets the same bytes as eight floats: centre x, base y, centre z, height, width,
    /// depth, the colour bytes in one float's bits, and the level-of-detail key's bits.
    #[test]
    fn an_instance_is_the_eight_floats_the_shader_reads() {
        let rgba = [10, 20, 30, 255];
        let instance = building_instance(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, rgba);
        let floats = [
            1.0,
            2.0,
            3.0,
            4.0,
            5.0,
            6.0,
            f32::from_bits(u32::from_le_bytes(rgba)),
            f32::from_bits(ALWAYS_DETAILED),
        ];
        assert_eq!(
            bytemuck::bytes_of(&instance),
            bytemuck::cast_slice::<f32, u8>(&floats)
        );
        assert_eq!(instance_rgba(&instance), rgba);
    }

    /// The key holds the offset as the shader's `unpack2x16float` reads it: x in the low half.
    #[test]
    fn the_lod_key_is_two_halves_x_first() {
        let key = lod_key(-12.5, 300.25);
        assert_eq!(half::f16::from_bits(key as u16).to_f32(), -12.5);
        assert_eq!(half::f16::from_bits((key >> 16) as u16).to_f32(), 300.25);
        assert_ne!(lod_key(0.0, 0.0), ALWAYS_DETAILED);
    }

    /// A perspective view: a unit spans fewer pixels the farther it is, and blocks group
    /// beyond the distance where it spans DETAIL_PLOT_PX.
    #[test]
    fn detail_view_groups_far_blocks() {
        let projection =
            Mat4::perspective_infinite_reverse_rh(std::f32::consts::FRAC_PI_4, 1.6, 0.1);
        let eye = GlobalTransform::from(
            Transform::from_xyz(0.0, 0.0, 0.0).looking_at(Vec3::NEG_Z, Vec3::Y),
        );
        let view = DetailView::new(projection, &eye, 800.0);
        // 45° vertical: 800 px span 2·tan(22.5°)·d world units at distance d.
        let at = |d: f32| Vec3::new(0.0, 0.0, -d);
        let expected = 800.0 / (2.0 * (std::f32::consts::FRAC_PI_8).tan() * 100.0);
        assert!((view.px_per_wu(at(100.0)) - expected).abs() < 1e-3 * expected);
        let boundary = 800.0 / (2.0 * (std::f32::consts::FRAC_PI_8).tan() * DETAIL_PLOT_PX);
        assert!(!view.grouped(at(boundary * 0.99)));
        assert!(view.grouped(at(boundary * 1.01)));
        // At or behind the eye: as near as can be.
        assert!(!view.grouped(Vec3::new(0.0, 0.0, 5.0)));
    }
}
