//! The pages' building blocks: the one escaping function every bot-controlled string goes
//! through (names, authors, versions, pause reasons, void reasons), the shared frame of every
//! page, and the rating history drawn as inline SVG. Pure: text in, text out.

/// `text` made safe inside HTML text and inside a double- or single-quoted attribute. Bots
/// choose their names, authors and versions, and their faults' details; every such string is
/// shown through this function and no other.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page: `title` is escaped here; `body` is HTML the caller built (with [`esc`]);
/// `script` names one of the server's own scripts, if the page has one.
pub fn page(title: &str, body: &str, script: Option<&str>) -> String {
    let script = script
        .map(|s| format!("<script src=\"/assets/{s}\" defer></script>\n"))
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} · Aluette arena</title>\n<link rel=\"stylesheet\" href=\"/assets/arena.css\">\n\
         {script}</head>\n<body>\n<nav><a href=\"/\">Leaderboard</a> <a href=\"/games\">Games</a> \
         <a href=\"/live\">Live</a> <a href=\"/admin\">Admin</a></nav>\n<main>\n{body}</main>\n\
         </body>\n</html>\n",
        esc(title)
    )
}

/// A number with `digits` decimals, or a dash for one that is not finite.
pub fn num(v: f64, digits: usize) -> String {
    if v.is_finite() { format!("{v:.digits$}") } else { "–".into() }
}

/// A time (seconds since the epoch) as `YYYY-MM-DD HH:MM` UTC, or a dash.
pub fn time(t: Option<i64>) -> String {
    let Some(t) = t else { return "–".into() };
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (y, m, d) = civil(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", secs / 3600, secs % 3600 / 60)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// One point of a rating history: the rating and its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// The rating.
    pub value: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

/// The most points a chart draws: a long history is thinned to this many.
pub const MAX_POINTS: usize = 300;

/// At most `max` of `points`, evenly spaced, the first and the last always among them.
pub fn thin<T: Copy>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points.iter().copied().take(max.max(points.len().min(1))).collect();
    }
    let last = points.len() - 1;
    (0..max).map(|i| points[i * last / (max - 1)]).collect()
}

const W: f64 = 600.0;
const H: f64 = 200.0;
const PAD: f64 = 10.0;

/// A rating history as an inline SVG chart: the interval as a band, the rating as a line, one
/// step per snapshot (oldest at the left). Points that are not finite are left out; with none
/// left the chart says so. Only numbers go in, so nothing needs escaping.
pub fn history_svg(points: &[Point]) -> String {
    let finite: Vec<Point> = points
        .iter()
        .copied()
        .filter(|p| p.value.is_finite() && p.low.is_finite() && p.high.is_finite())
        .collect();
    let pts = thin(&finite, MAX_POINTS);
    let head = format!(
        "<svg class=\"history\" data-testid=\"history\" viewBox=\"0 0 {W} {H}\" \
         width=\"{W}\" height=\"{H}\" role=\"img\" aria-label=\"rating history\" \
         xmlns=\"http://www.w3.org/2000/svg\">"
    );
    if pts.is_empty() {
        return format!(
            "{head}<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no rating yet</text></svg>",
            W / 2.0,
            H / 2.0
        );
    }
    let lo = pts.iter().map(|p| p.low.min(p.value)).fold(f64::INFINITY, f64::min);
    let hi = pts.iter().map(|p| p.high.max(p.value)).fold(f64::NEG_INFINITY, f64::max);
    // A flat history still needs a height to draw in.
    let (lo, hi) = if hi - lo < 1e-9 { (lo - 1.0, hi + 1.0) } else { (lo, hi) };
    let x = |i: usize| {
        if pts.len() == 1 {
            W / 2.0
        } else {
            PAD + (W - 2.0 * PAD) * i as f64 / (pts.len() - 1) as f64
        }
    };
    let y = |v: f64| PAD + (H - 2.0 * PAD) * (hi - v) / (hi - lo);
    let upper: Vec<String> =
        pts.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.high))).collect();
    let lower: Vec<String> =
        pts.iter().enumerate().rev().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.low))).collect();
    let line: Vec<String> =
        pts.iter().enumerate().map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.value))).collect();
    let last = pts[pts.len() - 1];
    format!(
        "{head}<polygon class=\"band\" fill=\"#9bc1e8\" fill-opacity=\"0.5\" points=\"{} {}\"/>\
         <polyline class=\"value\" fill=\"none\" stroke=\"#1d4f91\" stroke-width=\"2\" \
         points=\"{}\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1d4f91\"/>\
         <text x=\"{PAD}\" y=\"{}\" font-size=\"11\">{}</text>\
         <text x=\"{PAD}\" y=\"{}\" font-size=\"11\">{}</text></svg>",
        upper.join(" "),
        lower.join(" "),
        line.join(" "),
        x(pts.len() - 1),
        y(last.value),
        PAD + 10.0,
        num(hi, 2),
        H - PAD,
        num(lo, 2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        let hostile = r#"<script>alert('x')</script> & "quoted" <img src=x onerror=1>"#;
        let e = esc(hostile);
        assert_eq!(
            e,
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; \
             &lt;img src=x onerror=1&gt;"
        );
        assert!(!e.contains(['<', '>', '"', '\'']));
        assert_eq!(esc("plain name v1.2"), "plain name v1.2");
        assert_eq!(esc("été"), "été");
    }

    #[test]
    fn the_title_is_escaped_in_the_frame() {
        let p = page("<b>bot</b>", "<p>body</p>", Some("live.js"));
        assert!(p.contains("<title>&lt;b&gt;bot&lt;/b&gt; · Aluette arena</title>"));
        assert!(p.contains("<p>body</p>"));
        assert!(p.contains("<script src=\"/assets/live.js\" defer></script>"));
        assert!(!page("t", "", None).contains("<script"));
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(time(Some(0)), "1970-01-01 00:00");
        // 2000-02-29 12:34:56 UTC.
        assert_eq!(time(Some(951_827_696)), "2000-02-29 12:34");
        assert_eq!(time(Some(1_798_761_599)), "2026-12-31 23:59");
        assert_eq!(time(None), "–");
    }

    fn coords(svg: &str, class: &str) -> Vec<(f64, f64)> {
        let at = svg.find(&format!("class=\"{class}\"")).unwrap();
        let rest = &svg[at..];
        let start = rest.find("points=\"").unwrap() + 8;
        let end = start + rest[start..].find('"').unwrap();
        rest[start..end]
            .split(' ')
            .map(|xy| {
                let (x, y) = xy.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn the_history_line_rises_with_the_rating_inside_its_band() {
        let p = |value: f64, half: f64| Point { value, low: value - half, high: value + half };
        let svg = history_svg(&[p(0.0, 2.0), p(1.0, 1.0), p(2.0, 0.5)]);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        let line = coords(&svg, "value");
        assert_eq!(line.len(), 3);
        // Left to right in time; SVG's y grows downwards, so a rising rating has falling y.
        assert!(line[0].0 < line[1].0 && line[1].0 < line[2].0);
        assert!(line[0].1 > line[1].1 && line[1].1 > line[2].1);
        let band = coords(&svg, "band");
        assert_eq!(band.len(), 6);
        // Every drawn point is inside the view box.
        for (x, y) in line.iter().chain(&band) {
            assert!((0.0..=W).contains(x) && (0.0..=H).contains(y), "{x},{y}");
        }
        // The top edge is above the line at each step, the bottom edge below it.
        for i in 0..3 {
            assert!(band[i].1 < line[i].1);
            assert!(band[5 - i].1 > line[i].1);
        }
    }

    #[test]
    fn long_histories_are_thinned_keeping_both_ends() {
        let v: Vec<u32> = (0..1000).collect();
        let t = thin(&v, 300);
        assert_eq!((t.len(), t[0], t[299]), (300, 0, 999));
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(thin(&v[..5], 300), [0, 1, 2, 3, 4]);
        assert_eq!(thin(&v, 1), [0]);
        assert!(thin::<u32>(&[], 300).is_empty());
        let p = |value: f64| Point { value, low: value - 1.0, high: value + 1.0 };
        let long: Vec<Point> = (0..5000).map(|i| p(f64::from(i))).collect();
        let svg = history_svg(&long);
        assert_eq!(coords(&svg, "value").len(), MAX_POINTS);
    }

    #[test]
    fn a_history_without_finite_points_says_so() {
        let nan = Point { value: f64::NAN, low: 0.0, high: 1.0 };
        let svg = history_svg(&[nan]);
        assert!(svg.contains("no rating yet") && !svg.contains("polyline"));
        let flat = history_svg(&[Point { value: 3.0, low: 3.0, high: 3.0 }]);
        assert!(!flat.contains("NaN") && flat.contains("polyline"));
    }
}
