// highrise buildings: the shared unit cube drawn once per building instance. Each instance (a
// `BuildingInstance` of instancing.rs) carries its world-space centre (x, z), base height, height,
// footprint and colour; the vertex stage places the box and lights it with one fixed
// directional light plus ambient. Level of detail: a block's buildings are drawn where a plot
// at the block's centre spans at least DETAIL_PLOT_PX pixels, the block's grouped box (alpha 0)
// where it spans fewer; the other is moved out of the view.

#import bevy_pbr::view_transformations::position_world_to_clip
#import bevy_pbr::mesh_view_bindings::view

// Filled in from instancing.rs when the shader loads.
const DETAIL_PLOT_PX: f32 = {DETAIL_PLOT_PX};
const ALWAYS_DETAILED: u32 = 0xffffffffu;

struct Vertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // centre x, base y, centre z, height
    @location(3) i_place: vec4<f32>,
    // footprint width (x), depth (z)
    @location(4) i_size: vec2<f32>,
    // linear-light colour; alpha 0: a block's grouped box
    @location(5) i_colour: vec4<f32>,
    // offset (x, z) to the block's centre as two f16, or ALWAYS_DETAILED
    @location(6) i_lod: u32,
};

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// Pixels one world unit spans at `at` (as many as can be at or behind the eye).
fn px_per_wu(at: vec3<f32>) -> f32 {
    let w = position_world_to_clip(at).w;
    return view.clip_from_view[1][1] * 0.5 * view.viewport.w / max(w, 1e-4);
}

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    var out: VertexOutput;
    if vertex.i_lod != ALWAYS_DETAILED {
        let offset = unpack2x16float(vertex.i_lod);
        let centre = vec3<f32>(vertex.i_place.x + offset.x, vertex.i_place.y, vertex.i_place.z + offset.y);
        let grouped = px_per_wu(centre) < DETAIL_PLOT_PX;
        let is_group_box = vertex.i_colour.a < 0.5;
        if grouped != is_group_box {
            // Not drawn at this distance: outside the clip volume.
            out.clip_position = vec4<f32>(2.0, 2.0, 2.0, 1.0);
            out.colour = vec4<f32>(0.0);
            return out;
        }
    }
    // The cube spans -0.5..0.5 on every axis.
    let world = vec3<f32>(
        vertex.i_place.x + vertex.position.x * vertex.i_size.x,
        vertex.i_place.y + (vertex.position.y + 0.5) * vertex.i_place.w,
        vertex.i_place.z + vertex.position.z * vertex.i_size.y,
    );
    out.clip_position = position_world_to_clip(world);
    // The scene's directional light comes from (-30, 80, 50) toward the origin.
    let light = normalize(vec3<f32>(-30.0, 80.0, 50.0));
    let lambert = max(dot(normalize(vertex.normal), light), 0.0);
    out.colour = vec4<f32>(vertex.i_colour.rgb * (0.35 + 0.75 * lambert), 1.0);
    return out;
}

@fragment
fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {
    return in.colour;
}
