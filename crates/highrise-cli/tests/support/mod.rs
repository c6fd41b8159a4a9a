//! Pixel rules shared by the tests that look at rendered images (window and offscreen).

/// The diff city's red: B spends more (the ramp's slow end, lit or shaded).
pub fn is_slower_red(pixel: &image::Rgb<u8>) -> bool {
    let [r, g, b] = pixel.0.map(i32::from);
    r > 100 && r > 2 * g && r > 2 * b
}
