//! Buildings in one instanced draw per city: the city keeps a flat array of per-building
//! instances (position, height, footprint, colour) and the GPU draws the shared cube once per
//! instance. No entity, transform or material per building: a height change is a write into
//! that array, and the array goes to the GPU only when something changed.
//!
//! The render side follows Bevy 0.16's `custom_shader_instancing` example (a specialised mesh
//! pipeline with a second, per-instance vertex buffer); the shader (`buildings.wgsl`, embedded)
//! places and lights each box itself.

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
    /// The colour as linear-light RGBA bytes (read as `Unorm8x4`).
    pub rgba: [u8; 4],
    /// Padding to 32 bytes (always zero).
    pub padding: f32,
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
        padding: 0.0,
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

/// The shader, embedded in the binary.
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
            .add(Shader::from_wgsl(SHADER_SOURCE, "highrise/buildings.wgsl"));
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

    /// The GPU gets the same bytes as the eight floats of the former layout: centre x, base y,
    /// centre z, height, width, depth, the colour bytes in one float's bits, and a zero.
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
            0.0f32,
        ];
        assert_eq!(
            bytemuck::bytes_of(&instance),
            bytemuck::cast_slice::<f32, u8>(&floats)
        );
        assert_eq!(instance_rgba(&instance), rgba);
    }
}
