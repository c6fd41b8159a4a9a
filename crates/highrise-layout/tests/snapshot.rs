//! Snapshot of the paper's Tetris-sized city (8 packages, 24 classes) as an ASCII map, so
//! any change to the layout rules shows up in review as a picture.

mod support;

use highrise_layout::CityLayout;
use support::tetris::tetris;
use support::{check_geometry, check_ordering};

/// Top view, origin corner (min X, min Z) at the bottom left like the paper's figure:
/// digits = district ground by depth, `.` = empty plot of a block, letters = buildings
/// (one letter per class), blank = outside every district.
fn render(city: &CityLayout) -> String {
    let bounds = city.bounds();
    let (w, h) = (bounds.width_wu() as usize, bounds.depth_wu() as usize);
    let mut grid = vec![vec![' '; w]; h];
    let mut districts: Vec<_> = city.districts().iter().collect();
    districts.sort_by_key(|d| d.depth);
    let mut fill = |r: &highrise_layout::Rect, c: char| {
        for row in &mut grid[r.min_z as usize..r.max_z as usize] {
            for cell in &mut row[r.min_x as usize..r.max_x as usize] {
                *cell = c;
            }
        }
    };
    for d in districts {
        fill(
            &d.rect,
            char::from_digit(u32::from(d.depth), 10).unwrap_or('+'),
        );
    }
    for b in city.blocks() {
        fill(&b.rect, '.');
    }
    for b in city.buildings() {
        let class = city.blocks()[b.block as usize].class as usize;
        let letter = if class < 26 {
            b'a' + class as u8
        } else {
            b'A' + (class - 26) as u8
        };
        fill(&b.plot, letter as char);
    }
    let mut out = String::new();
    for row in grid.iter().rev() {
        out.push_str(row.iter().collect::<String>().trim_end());
        out.push('\n');
    }
    out.push_str("\nlegend:\n");
    for (i, class) in city.classes().iter().enumerate() {
        let letter = if i < 26 {
            (b'a' + i as u8) as char
        } else {
            (b'A' + (i - 26) as u8) as char
        };
        let package = &city.packages()[class.package as usize].path;
        out.push_str(&format!(
            "  {letter} {package}.{} ({} methods)\n",
            class.name, class.method_count
        ));
    }
    out.push_str(&format!("bounds: {} x {} plots\n", w, h));
    out
}

#[test]
fn tetris_city_snapshot() {
    let city = CityLayout::full(&tetris()).expect("layout");
    assert_eq!(
        city.packages().len(),
        1 + 8,
        "root + 8 packages (org holds org.ini4j)"
    );
    assert_eq!(city.classes().len(), 24);
    check_geometry(&city);
    check_ordering(&city);
    insta::assert_snapshot!(render(&city));
}
