package org.clustersim.cli.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes a {@link Report} as one self-contained HTML page: styles, the charts (inline SVG,
 * hover text on every bar and cell) and a short script are all in the file, so it opens
 * offline and can be mailed around. The script only checks the page: it counts each chart's
 * drawn marks with their rendered sizes and records them, and any script error, as attributes
 * ({@code data-marks} on each chart, {@code data-filled}/{@code data-empty} on the body,
 * {@code data-errors} on the root) that the browser test reads.
 */
public final class HtmlReport {
    private static final String STYLE = """
            body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1240px;\
            padding:0 16px;color:#222;background:#fff}
            h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #ddd;\
            padding-bottom:4px}h3{font-size:16px;margin:18px 0 6px}
            .sub{color:#666;margin:0 0 16px}figure{margin:8px 0 18px}figcaption{color:#555;font-size:13px;\
            margin-top:4px;max-width:1000px}svg{max-width:100%;height:auto;display:block}
            table{border-collapse:collapse;font-size:13px;margin:6px 0 14px}th,td{padding:3px 10px;\
            border-bottom:1px solid #eee;text-align:left}th{background:#f5f5f5}td.n{text-align:right;\
            font-variant-numeric:tabular-nums}
            .cols{display:flex;gap:20px;align-items:flex-start}.cols>div{flex:1;min-width:0}
            nav{font-size:13px;margin:8px 0 0}nav a{margin-right:12px;color:#4e79a7}
            """;

    private static final String GUARD = "<script>window.addEventListener('error',function(e){var r=document"
            + ".documentElement;r.setAttribute('data-errors',(r.getAttribute('data-errors')||'')+e.message+'; ');});"
            + "</script>\n";

    private static final String CHECK = """
            <script>
            (function(){
              var filled=0,empty=[];
              document.querySelectorAll('svg[data-chart]').forEach(function(svg){
                var n=0;
                svg.querySelectorAll('rect,circle,polyline').forEach(function(el){
                  var data=el.tagName==='polyline'?el.points.numberOfItems>1:el.querySelector('title')!==null;
                  if(!data)return;
                  var b=el.getBBox();
                  if(b.width>0||b.height>0)n++;
                });
                var box=svg.getBoundingClientRect();
                if(box.width<=0||box.height<=0)n=0;
                svg.setAttribute('data-marks',n);
                if(n>0)filled++;else empty.push(svg.id);
              });
              document.body.setAttribute('data-filled',filled);
              document.body.setAttribute('data-empty',empty.join(' '));
            })();
            </script>
            """;

    private HtmlReport() {
    }

    /** Writes the page; {@code out} is not closed. */
    public static void write(Report report, OutputStream out) throws IOException {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        w.write("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        w.write("<title>" + SvgCanvas.escape(report.title()) + "</title>\n");
        w.write(GUARD);
        w.write("<style>\n" + STYLE + "</style>\n</head>\n<body>\n");
        w.write("<h1>" + SvgCanvas.escape(report.title()) + "</h1>\n");
        w.write("<p class=\"sub\">" + SvgCanvas.escape(report.subtitle()) + "</p>\n");
        List<Block.Heading> sections = report.blocks().stream().filter(b -> b instanceof Block.Heading h
                && h.level() == 2).map(b -> (Block.Heading) b).toList();
        if (sections.size() > 1) {
            w.write("<nav>");
            for (Block.Heading h : sections) {
                w.write("<a href=\"#" + anchor(h.text()) + "\">" + SvgCanvas.escape(h.text()) + "</a>");
            }
            w.write("</nav>\n");
        }
        for (Block b : report.blocks()) {
            block(w, b);
        }
        w.write(CHECK);
        w.write("</body>\n</html>\n");
        w.flush();
    }

    private static void block(Writer w, Block b) throws IOException {
        if (b instanceof Block.Heading h) {
            w.write("<h" + h.level() + " id=\"" + anchor(h.text()) + "\">" + SvgCanvas.escape(h.text()) + "</h"
                    + h.level() + ">\n");
        } else if (b instanceof Block.Paragraph p) {
            w.write("<p>" + SvgCanvas.escape(p.text()) + "</p>\n");
        } else if (b instanceof Block.Table t) {
            table(w, t);
        } else if (b instanceof Block.Figure f) {
            w.write("<figure>\n<h3>" + SvgCanvas.escape(f.chart().title()) + "</h3>\n");
            w.write(f.chart().svg());
            w.write("<figcaption>" + SvgCanvas.escape(f.chart().caption()) + "</figcaption>\n</figure>\n");
        } else if (b instanceof Block.Columns c) {
            w.write("<div class=\"cols\">\n");
            for (int i = 0; i < c.columns().size(); i++) {
                w.write("<div>\n<h2>" + SvgCanvas.escape(c.titles().get(i)) + "</h2>\n");
                for (Block inner : c.columns().get(i)) {
                    block(w, inner);
                }
                w.write("</div>\n");
            }
            w.write("</div>\n");
        }
    }

    private static void table(Writer w, Block.Table t) throws IOException {
        w.write("<table id=\"" + SvgCanvas.escape(t.id()) + "\">\n<tr>");
        for (String h : t.header()) {
            w.write("<th>" + SvgCanvas.escape(h) + "</th>");
        }
        w.write("</tr>\n");
        for (List<String> row : t.rows()) {
            w.write("<tr>");
            for (int i = 0; i < row.size(); i++) {
                w.write(t.numeric().get(i) ? "<td class=\"n\">" : "<td>");
                w.write(SvgCanvas.escape(row.get(i)) + "</td>");
            }
            w.write("</tr>\n");
        }
        w.write("</table>\n");
    }

    private static String anchor(String text) {
        // prefixed: chart and table ids are plain names ("pipeline"), and ids must be distinct
        return "sec-" + text.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }
}
