// highrise buildings: the shared unit cube drawn once per building instance. Each instance (a
// `BuildingInstance` of instancing.rs) carries its world-space centre (x, z), base height, height,
// footprint and colour; the vertex stage places the box and lights it with one fixed
// directional light plus ambient.

#import bevy_pbr::view_transformations::position_world_to_clip

struct Vertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    // centre x, base y, centre z, height
    @location(3) i_place: vec4<f32>,
    // footprint width (x), depth (z)
    @location(4) i_size: vec2<f32>,
    // linear-light colour
    @location(5) i_colour: vec4<f32>,
};

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

@vertex
fn vertex(vertex: Vertex) -> VertexOutput {
    // The cube spans -0.5..0.5 on every axis.
    let world = vec3<f32>(
        vertex.i_place.x + vertex.position.x * vertex.i_size.x,
        vertex.i_place.y + (vertex.position.y + 0.5) * vertex.i_place.w,
        vertex.i_place.z + vertex.position.z * vertex.i_size.y,
    );
    var out: VertexOutput;
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
