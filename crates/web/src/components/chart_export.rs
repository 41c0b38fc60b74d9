//! Saving a chart: its drawing as a stand-alone SVG or a PNG, and the numbers
//! it draws as CSV. Every chart on the page carries one [`ChartExport`].
//!
//! The SVG is the drawing on screen, serialized, with the page's styles that
//! matter to it (fills, strokes, fonts) copied onto each element, so the
//! file looks the same without the stylesheet. The PNG is that SVG drawn
//! into an offscreen canvas at twice its size, on white. The CSV is built
//! from the same data the chart draws, by the chart, only when asked for.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{CanvasRenderingContext2d, Element, HtmlCanvasElement, HtmlImageElement, Url, XmlSerializer};
use yew::prelude::*;

use crate::download::{download_blob, download_text, text_blob, warn_on_error};

/// Properties of [`ChartExport`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ChartExportProps {
    /// The chart's `<svg>` element.
    pub svg: NodeRef,
    /// The files' name without extension, e.g. `cpi-chart`.
    pub stem: AttrValue,
    /// Builds the chart's numbers as CSV (a header row with units, then one
    /// row per value drawn), when the CSV button is pressed.
    pub csv: Callback<(), String>,
}

/// The SVG namespace, which a stand-alone SVG file must declare.
const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";

/// The computed style properties copied onto each element of an exported SVG.
const INLINED_STYLES: [&str; 9] = [
    "fill",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "font-family",
    "font-size",
    "font-weight",
    "opacity",
    "fill-opacity",
];

/// How much larger than its drawing's own units a PNG is drawn.
const PNG_SCALE: f64 = 2.0;

/// Three small buttons: SVG, PNG and CSV.
#[component]
pub fn ChartExport(props: &ChartExportProps) -> Html {
    let stem = props.stem.clone();
    let on_svg = {
        let (svg, stem) = (props.svg.clone(), stem.clone());
        Callback::from(move |_: MouseEvent| {
            let name = format!("{stem}.svg");
            let text =
                svg.cast::<Element>().ok_or_else(|| JsValue::from_str("the chart is not drawn")).and_then(|svg| {
                    let (width, height) = drawing_size(&svg);
                    standalone_svg(&svg, width, height)
                });
            match text {
                Ok(text) => download_text(&name, "image/svg+xml", &text),
                Err(error) => warn_on_error(&name, Err(error)),
            }
        })
    };
    let on_png = {
        let (svg, stem) = (props.svg.clone(), stem.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(svg) = svg.cast::<Element>() else { return };
            let name = format!("{stem}.png");
            wasm_bindgen_futures::spawn_local(async move {
                match png(&svg).await {
                    Ok(blob) => download_blob(&name, &blob),
                    Err(error) => warn_on_error(&name, Err(error)),
                }
            });
        })
    };
    let on_csv = {
        let csv = props.csv.clone();
        Callback::from(move |_: MouseEvent| download_text(&format!("{stem}.csv"), "text/csv", &csv.emit(())))
    };
    html! {
        <span class="chart-export" data-testid="chart-export" role="group" aria-label="Save this chart">
            <button type="button" class="button small" data-testid="export-svg" onclick={on_svg}
                title="Save the drawing as an SVG file">{ "SVG" }</button>
            <button type="button" class="button small" data-testid="export-png" onclick={on_png}
                title="Save the drawing as a PNG image">{ "PNG" }</button>
            <button type="button" class="button small" data-testid="export-csv" onclick={on_csv}
                title="Save the chart's numbers as a CSV table">{ "CSV" }</button>
        </span>
    }
}

/// The rows as CSV text: fields with a comma, quote or line break quoted,
/// lines ended by `\n`.
pub fn csv_text<R: IntoIterator<Item = S>, S: AsRef<str>>(rows: impl IntoIterator<Item = R>) -> String {
    let mut text = String::new();
    for row in rows {
        let fields: Vec<String> = row.into_iter().map(|field| csv_field(field.as_ref())).collect();
        text += &fields.join(",");
        text.push('\n');
    }
    text
}

fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// The drawing's size in its own units: the `viewBox`'s, else the size on screen.
fn drawing_size(svg: &Element) -> (f64, f64) {
    let view_box = svg.get_attribute("viewBox").unwrap_or_default();
    let numbers: Vec<f64> = view_box.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    match numbers.as_slice() {
        [_, _, width, height] if *width > 0.0 && *height > 0.0 => (*width, *height),
        _ => {
            let rect = svg.get_bounding_client_rect();
            (rect.width().max(1.0), rect.height().max(1.0))
        }
    }
}

/// `svg` serialized as a file of `width` × `height`, with its namespace and
/// its elements' computed styles written on them.
fn standalone_svg(svg: &Element, width: f64, height: f64) -> Result<String, JsValue> {
    let copy: Element = svg.clone_node_with_deep(true)?.dyn_into()?;
    copy.set_attribute("xmlns", SVG_NAMESPACE)?;
    copy.set_attribute("width", &format!("{width}"))?;
    copy.set_attribute("height", &format!("{height}"))?;
    inline_styles(svg, &copy)?;
    // A white ground, as on the page, for viewers that show transparency.
    let ground = gloo::utils::document().create_element_ns(Some(SVG_NAMESPACE), "rect")?;
    for (name, value) in [("width", "100%"), ("height", "100%"), ("fill", "#fff")] {
        ground.set_attribute(name, value)?;
    }
    let after_title = copy.query_selector("title")?.and_then(|title| title.next_sibling());
    copy.insert_before(&ground, after_title.as_ref())?;
    XmlSerializer::new()?.serialize_to_string(&copy)
}

/// Copies [`INLINED_STYLES`] from each element under `original` onto the
/// same element under `copy` (the two trees have the same shape): all of them
/// on the root, and on the others those that differ from their parent's, so
/// inherited values are written once.
fn inline_styles(original: &Element, copy: &Element) -> Result<(), JsValue> {
    let window = gloo::utils::window();
    let originals = original.query_selector_all("*")?;
    let copies = copy.query_selector_all("*")?;
    let root = std::iter::once((original.clone(), copy.clone()));
    let pairs = (0..originals.length()).filter_map(|i| {
        let from = originals.item(i)?.dyn_into::<Element>().ok()?;
        let to = copies.item(i)?.dyn_into::<Element>().ok()?;
        Some((from, to))
    });
    for (from, to) in root.chain(pairs) {
        if matches!(from.tag_name().as_str(), "title" | "desc") {
            continue;
        }
        let Some(computed) = window.get_computed_style(&from)? else { continue };
        let parent = match from.parent_element().filter(|_| from != *original) {
            Some(parent) => window.get_computed_style(&parent)?,
            None => None,
        };
        let mut style = String::new();
        for property in INLINED_STYLES {
            let value = computed.get_property_value(property)?;
            let inherited = match &parent {
                Some(parent) => parent.get_property_value(property)? == value,
                None => false,
            };
            if !value.is_empty() && !inherited {
                style += &format!("{property}:{value};");
            }
        }
        if !style.is_empty() {
            to.set_attribute("style", &style)?;
        }
    }
    Ok(())
}

/// The drawing as a PNG at [`PNG_SCALE`] times its size, on white.
async fn png(svg: &Element) -> Result<web_sys::Blob, JsValue> {
    let (width, height) = drawing_size(svg);
    let (pixels_wide, pixels_high) = ((width * PNG_SCALE).round(), (height * PNG_SCALE).round());
    let text = standalone_svg(svg, pixels_wide, pixels_high)?;
    let url = Url::create_object_url_with_blob(&text_blob("image/svg+xml", &text)?)?;
    let image = HtmlImageElement::new()?;
    image.set_src(&url);
    let decoded = JsFuture::from(image.decode()).await;
    Url::revoke_object_url(&url)?;
    decoded?;
    let canvas: HtmlCanvasElement = gloo::utils::document().create_element("canvas")?.dyn_into()?;
    canvas.set_width(pixels_wide as u32);
    canvas.set_height(pixels_high as u32);
    let context: CanvasRenderingContext2d =
        canvas.get_context("2d")?.ok_or_else(|| JsValue::from_str("no 2D canvas"))?.dyn_into()?;
    context.set_fill_style_str("#fff");
    context.fill_rect(0.0, 0.0, pixels_wide, pixels_high);
    context.draw_image_with_html_image_element_and_dw_and_dh(&image, 0.0, 0.0, pixels_wide, pixels_high)?;
    let blob = js_sys::Promise::new(&mut |resolve, reject| {
        if let Err(error) = canvas.to_blob(&resolve) {
            let _ = reject.call1(&JsValue::NULL, &error);
        }
    });
    JsFuture::from(blob).await?.dyn_into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_what_needs_it() {
        let text = csv_text([vec!["name", "IPC (thread instructions / cycle)"], vec!["a, b", "say \"hi\""]]);
        assert_eq!(text, "name,IPC (thread instructions / cycle)\n\"a, b\",\"say \"\"hi\"\"\"\n");
        assert_eq!(csv_text(Vec::<Vec<&str>>::new()), "");
    }
}
