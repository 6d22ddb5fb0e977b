package org.clustersim.cli.report;

import java.util.Locale;

/**
 * A {@link Canvas} that writes SVG elements; {@link #document} wraps them in an {@code <svg>}
 * element with a view box, sized to scale with the page. Coordinates are rounded to one decimal
 * so large charts stay small.
 */
public final class SvgCanvas implements Canvas {
    private final StringBuilder body = new StringBuilder(4096);

    @Override
    public void rect(double x, double y, double w, double h, String fill, String tip) {
        body.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
                .append("\" height=\"").append(n(h)).append("\" fill=\"").append(fill).append('"');
        closeWithTip(tip, "rect");
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed) {
        body.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
                .append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(stroke).append("\" stroke-width=\"")
                .append(n(width)).append('"').append(dashed ? " stroke-dasharray=\"6 4\"" : "").append("/>\n");
    }

    @Override
    public void polyline(double[] xy, String stroke, double width) {
        body.append("<polyline fill=\"none\" stroke=\"").append(stroke).append("\" stroke-width=\"").append(n(width))
                .append("\" points=\"");
        for (int i = 0; i + 1 < xy.length; i += 2) {
            if (i > 0) {
                body.append(' ');
            }
            body.append(n(xy[i])).append(',').append(n(xy[i + 1]));
        }
        body.append("\"/>\n");
    }

    @Override
    public void dot(double x, double y, double r, String fill, String tip) {
        body.append("<circle cx=\"").append(n(x)).append("\" cy=\"").append(n(y)).append("\" r=\"").append(n(r))
                .append("\" fill=\"").append(fill).append('"');
        closeWithTip(tip, "circle");
    }

    @Override
    public void text(double x, double y, String text, double size, Anchor anchor, String fill) {
        body.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"").append(n(size))
                .append('"');
        if (anchor != Anchor.START) {
            body.append(" text-anchor=\"").append(anchor == Anchor.MIDDLE ? "middle" : "end").append('"');
        }
        if (!"#000".equals(fill)) {
            body.append(" fill=\"").append(fill).append('"');
        }
        body.append('>').append(escape(text)).append("</text>\n");
    }

    private void closeWithTip(String tip, String element) {
        if (tip == null) {
            body.append("/>\n");
        } else {
            body.append("><title>").append(escape(tip)).append("</title></").append(element).append(">\n");
        }
    }

    /**
     * The drawing as a standalone SVG element.
     *
     * @param id    the element id ({@code data-chart} too: what the browser test looks for)
     * @param title the accessible title
     */
    public String document(String id, String title, int width, int height) {
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" + escape(id) + "\" data-chart=\"" + escape(id)
                + "\" viewBox=\"0 0 " + width + " " + height + "\" width=\"" + width + "\" height=\"" + height
                + "\" font-family=\"sans-serif\" role=\"img\">\n<title>" + escape(title) + "</title>\n"
                + "<rect x=\"0\" y=\"0\" width=\"" + width + "\" height=\"" + height + "\" fill=\"#fff\"/>\n"
                + body + "</svg>\n";
    }

    /** XML-escapes text and attribute values. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static String n(double v) {
        long r = Math.round(v * 10);
        return r % 10 == 0 ? Long.toString(r / 10) : String.format(Locale.ROOT, "%.1f", r / 10.0);
    }
}
