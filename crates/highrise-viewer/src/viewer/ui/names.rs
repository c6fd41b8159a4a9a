//! The names of a building: as people read them (per language) and as the agent sent them.

use highrise_layout::CityLayout;

use super::qualified_name;
use crate::viewer::city::City;

/// Names of a building of a city: (display name, class as people read it, package); see
/// [`layout_building_names`].
pub fn building_names(city: &City, building: u32) -> Option<(String, String, String)> {
    layout_building_names(city.layout.as_ref()?, building)
}

/// Names of a building of any plan: (the method's display name,
/// `main.game.Board.createOrientation(String, InputStream)` per language as
/// [`highrise_protocol::display_name`] spells it; the class, `Outer.Inner`; the package).
pub fn layout_building_names(
    layout: &CityLayout,
    building: u32,
) -> Option<(String, String, String)> {
    let (package, class, method, signature) = building_parts(layout, building)?;
    Some((
        highrise_protocol::display_name(package, class, method, signature),
        highrise_protocol::display_class(class),
        package.to_string(),
    ))
}

/// The name of a building as the agent sent it: `package.Class.method` and the raw signature
/// (`main.game.Board.rotate(I)V`), what search matches besides the display name.
pub fn raw_building_name(layout: &CityLayout, building: u32) -> Option<String> {
    let (package, class, method, signature) = building_parts(layout, building)?;
    let mut name = qualified_name(package, class, method);
    name.push_str(signature.unwrap_or_default());
    Some(name)
}

/// (package, class, method, signature) of a building, as sent.
fn building_parts(layout: &CityLayout, building: u32) -> Option<(&str, &str, &str, Option<&str>)> {
    let placed = layout.buildings().get(building as usize)?;
    let block = layout.blocks().get(placed.block as usize)?;
    let class = layout.classes().get(block.class as usize)?;
    let package = layout.packages().get(class.package as usize)?;
    let (method, signature) = layout.method_name(building)?;
    Some((&package.path, &class.name, method, signature))
}

/// "package.Class" (just the class in the root package), nested classes as people read them
/// (`game.Outer.Inner`).
/// A method's display name without its package (`Canvas.create(String)` for
/// `shapes.Canvas.create(String)`); the whole name in the root package.
pub fn without_package(display_name: &str, package: &str) -> String {
    display_name
        .strip_prefix(package)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(display_name)
        .to_string()
}

pub fn qualified_name_of_class(package: &str, class: &str) -> String {
    let class = highrise_protocol::display_class(class);
    if package.is_empty() {
        class
    } else {
        format!("{package}.{class}")
    }
}

#[cfg(test)]
mod tests {
    use highrise_layout::MethodSpec;

    use super::*;
    use crate::viewer::ui::building_matches;

    fn spec(id: u32, package: &str, class: &str, method: &str, signature: &str) -> MethodSpec {
        MethodSpec {
            id,
            package: package.into(),
            class: class.into(),
            method: method.into(),
            signature: Some(signature.into()),
        }
    }

    #[test]
    fn buildings_are_named_per_language_and_found_by_either_name() {
        let specs = [
            spec(
                0,
                "main.game",
                "Board",
                "createOrientation",
                "(Ljava/lang/String;Ljava/io/InputStream;)[[Z",
            ),
            spec(1, "main.game", "Board$Cell", "<init>", "(II)V"),
            spec(
                2,
                "pygments.lexer",
                "RegexLexer",
                "get_tokens_unprocessed",
                "(self, text, stack)",
            ),
        ];
        let layout = CityLayout::full(&specs).expect("lays out");
        let names = |id: u32| {
            let building = layout.building_of(id).expect("placed");
            let names = layout_building_names(&layout, building).expect("named");
            (building, names)
        };
        let (orientation, (name, class, package)) = names(0);
        assert_eq!(
            name,
            "main.game.Board.createOrientation(String, InputStream)"
        );
        assert_eq!((class.as_str(), package.as_str()), ("Board", "main.game"));
        let (_, (name, class, _)) = names(1);
        assert_eq!(name, "main.game.Board.Cell.Cell(int, int)");
        assert_eq!(class, "Board.Cell");
        let (_, (name, _, _)) = names(2);
        assert_eq!(
            name,
            "pygments.lexer.RegexLexer.get_tokens_unprocessed(self, text, stack)"
        );
        let (_, (shown, _, _)) = names(0);
        for query in [
            "createorientation(string, inputstream",
            "ljava/io/inputstream;",
        ] {
            assert!(
                building_matches(&layout, orientation, &shown, query),
                "{query}"
            );
        }
        assert!(!building_matches(&layout, orientation, &shown, "rotate"));
        assert_eq!(
            qualified_name_of_class("main.game", "Board$Cell"),
            "main.game.Board.Cell"
        );
    }
}
