//! The page: one HTML file with the built bundle (`assets/city.js`, from `web/src` by
//! `scripts/build-web.sh`) inline, live or with a recording's data.

/// The bundle the page runs (three.js and `web/src`), built and checked in.
pub const BUNDLE_JS: &str = include_str!("../assets/city.js");
const TEMPLATE: &str = include_str!("../assets/page.html");

/// A script's text as it may stand inside `<script>`.
fn inline_script(text: &str) -> String {
    text.replace("</script", "<\\/script")
}

fn page(data: Option<&str>) -> String {
    let data = data.map_or_else(String::new, |json| {
        format!(
            "<script id=\"highrise-data\" type=\"application/json\">{}</script>",
            inline_script(json)
        )
    });
    TEMPLATE
        .replace("<!--HIGHRISE_DATA-->", &data)
        .replace("/*HIGHRISE_BUNDLE*/", &inline_script(BUNDLE_JS))
}

/// The live page (it opens the server's stream), made once.
pub fn live_html() -> &'static str {
    static LIVE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| page(None));
    &LIVE
}

/// A recording's page: `data_json` from [`crate::export::export_recording`].
pub fn recording_html(data_json: &str) -> String {
    page(Some(data_json))
}
