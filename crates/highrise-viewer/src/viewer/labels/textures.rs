//! How a label's text is drawn: the font and the two quads ([`LabelAssets`]), widths measured
//! without rasterising, each distinct text rasterised once (white glyphs in a dark halo) into
//! an unlit, alpha-blended material, and the least recently used ones dropped past the cache.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::mesh::{Indices, PrimitiveTopology};
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

use super::scene::{LabelKind, LabelTexture, SceneLabels};

/// Rasterised text height, pixels (textures are this tall plus padding).
const RASTER_PX: f32 = 40.0;
const RASTER_PAD_PX: u32 = 3;
/// Distinct label textures kept before unused ones are dropped.
const TEXTURE_CACHE: usize = 1_024;

/// The font labels are drawn in, and the quads they are drawn on.
#[derive(Resource)]
#[allow(missing_debug_implementations)] // the font holds only borrowed font tables
pub struct LabelAssets {
    font: FontRef<'static>,
    /// A 1 x 1 quad lying on the ground (XZ), text reading along +X, its top toward −Z.
    pub(super) ground_quad: Handle<Mesh>,
    /// A 1 x 1 quad standing in XY, facing +Z (turned toward the camera).
    pub(super) upright_quad: Handle<Mesh>,
}

impl FromWorld for LabelAssets {
    fn from_world(world: &mut World) -> Self {
        let font = FontRef::try_from_slice(epaint_default_fonts::UBUNTU_LIGHT)
            .expect("the bundled Ubuntu font parses");
        let mut meshes = world.resource_mut::<Assets<Mesh>>();
        let ground_quad = meshes.add(quad([
            [-0.5, 0.0, -0.5],
            [0.5, 0.0, -0.5],
            [0.5, 0.0, 0.5],
            [-0.5, 0.0, 0.5],
        ]));
        let upright_quad = meshes.add(quad([
            [-0.5, 0.5, 0.0],
            [0.5, 0.5, 0.0],
            [0.5, -0.5, 0.0],
            [-0.5, -0.5, 0.0],
        ]));
        Self {
            font,
            ground_quad,
            upright_quad,
        }
    }
}

/// A quad through four corners given clockwise from the text's top-left.
fn quad(corners: [[f32; 3]; 4]) -> Mesh {
    let a = Vec3::from(corners[0]);
    let normal = (Vec3::from(corners[3]) - a)
        .cross(Vec3::from(corners[1]) - a)
        .normalize();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD | RenderAssetUsages::MAIN_WORLD,
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, corners.to_vec())
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, vec![normal.to_array(); 4])
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_UV_0,
        vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
    )
    .with_inserted_indices(Indices::U32(vec![0, 1, 2, 0, 2, 3]))
}

impl LabelAssets {
    /// Width of `text` for a text height of 1, without rasterising it.
    pub(super) fn aspect(&self, text: &str) -> f32 {
        let scaled = self.font.as_scaled(PxScale::from(RASTER_PX));
        let mut width = 0.0;
        let mut last = None;
        for c in text.chars() {
            let glyph = scaled.glyph_id(c);
            if let Some(previous) = last {
                width += scaled.kern(previous, glyph);
            }
            width += scaled.h_advance(glyph);
            last = Some(glyph);
        }
        (width + 2.0 * RASTER_PAD_PX as f32) / (RASTER_PX + 2.0 * RASTER_PAD_PX as f32)
    }

    /// Width of `text` drawn `text_px` tall on screen by the overlay (egui draws the same
    /// Ubuntu font), pixels, with a tenth more for egui's own spacing.
    pub(super) fn width_px(&self, text: &str, text_px: f32) -> f32 {
        let padded = RASTER_PX + 2.0 * RASTER_PAD_PX as f32;
        let advance_px = self.aspect(text) * padded - 2.0 * RASTER_PAD_PX as f32;
        advance_px * text_px / RASTER_PX * 1.1
    }

    /// `text` in white on a transparent image (alpha is the glyph coverage).
    fn rasterise(&self, text: &str) -> Image {
        let scaled = self.font.as_scaled(PxScale::from(RASTER_PX));
        let pad = RASTER_PAD_PX as f32;
        let mut glyphs = Vec::new();
        let mut x = pad;
        let mut last = None;
        let baseline = pad + scaled.ascent();
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(previous) = last {
                x += scaled.kern(previous, id);
            }
            glyphs.push(id.with_scale_and_position(RASTER_PX, ab_glyph::point(x, baseline)));
            x += scaled.h_advance(id);
            last = Some(id);
        }
        let width = (x + pad).ceil().max(1.0) as u32;
        let height = (RASTER_PX + 2.0 * pad).ceil() as u32;
        // Glyph coverage, then a dark halo (the coverage spread by two pixels) so light text
        // reads on light slabs as on dark ones.
        let (w, h) = (width as usize, height as usize);
        let mut coverage = vec![0f32; w * h];
        for glyph in glyphs {
            let Some(outlined) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outlined.px_bounds();
            outlined.draw(|gx, gy, c| {
                let px = bounds.min.x as i64 + i64::from(gx);
                let py = bounds.min.y as i64 + i64::from(gy);
                if px < 0 || py < 0 || px >= width as i64 || py >= height as i64 {
                    return;
                }
                let cell = &mut coverage[py as usize * w + px as usize];
                *cell = cell.max(c.clamp(0.0, 1.0));
            });
        }
        // The halo is a 5 x 5 maximum filter, separable: rows, then columns.
        let mut rows = vec![0f32; w * h];
        for y in 0..h {
            for x in 0..w {
                rows[y * w + x] = (x.saturating_sub(2)..(x + 3).min(w))
                    .map(|sx| coverage[y * w + sx])
                    .fold(0f32, f32::max);
            }
        }
        let mut data = vec![0u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                let halo = (y.saturating_sub(2)..(y + 3).min(h))
                    .map(|sy| rows[sy * w + x])
                    .fold(0f32, f32::max);
                let text = coverage[y * w + x];
                let alpha = text.max(halo * 0.65);
                let grey = if alpha > 0.0 { text / alpha } else { 1.0 };
                let pixel = &mut data[(y * w + x) * 4..(y * w + x) * 4 + 4];
                pixel[..3].fill((grey * 255.0) as u8);
                pixel[3] = (alpha * 255.0) as u8;
            }
        }
        Image::new(
            Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            data,
            TextureFormat::Rgba8UnormSrgb,
            RenderAssetUsages::RENDER_WORLD | RenderAssetUsages::MAIN_WORLD,
        )
    }
}

pub(super) fn texture_key(kind: LabelKind, text: &str) -> String {
    format!("{kind:?}:{text}")
}

/// The material that draws `text` (rasterised once and cached).
pub(super) fn label_material(
    labels: &mut SceneLabels,
    assets: &LabelAssets,
    images: &mut Assets<Image>,
    materials: &mut Assets<StandardMaterial>,
    text: &str,
    kind: LabelKind,
    clock: u64,
) -> Handle<StandardMaterial> {
    let key = texture_key(kind, text);
    if let Some(texture) = labels.textures.get_mut(&key) {
        texture.last_used = clock;
        return texture.material.clone();
    }
    let image = images.add(assets.rasterise(text));
    let tint = match kind {
        LabelKind::Package => Color::srgb(0.93, 0.94, 0.97),
        LabelKind::Class => Color::srgb(0.78, 0.82, 0.88),
        LabelKind::Building => Color::srgb(1.0, 1.0, 1.0),
    };
    let material = materials.add(StandardMaterial {
        base_color: tint,
        base_color_texture: Some(image),
        alpha_mode: AlphaMode::Blend,
        unlit: true,
        double_sided: true,
        cull_mode: None,
        ..default()
    });
    labels.textures.insert(
        key,
        LabelTexture {
            material: material.clone(),
            last_used: clock,
        },
    );
    material
}

/// Drops the least recently used textures beyond the cache size.
pub(super) fn evict_textures(
    labels: &mut SceneLabels,
    materials: &mut Assets<StandardMaterial>,
    clock: u64,
) {
    if labels.textures.len() <= TEXTURE_CACHE {
        return;
    }
    let mut ages: Vec<(u64, String)> = labels
        .textures
        .iter()
        .filter(|(_, t)| t.last_used != clock)
        .map(|(k, t)| (t.last_used, k.clone()))
        .collect();
    ages.sort_unstable();
    let excess = labels.textures.len() - TEXTURE_CACHE / 2;
    for (_, key) in ages.into_iter().take(excess) {
        if let Some(texture) = labels.textures.remove(&key) {
            materials.remove(&texture.material);
        }
    }
}
