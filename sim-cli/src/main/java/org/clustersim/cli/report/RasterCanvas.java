package org.clustersim.cli.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;

/**
 * A {@link Canvas} that paints with Java2D into an image, for the PNG plots; runs headless.
 * Colours are the {@code #rgb} / {@code #rrggbb} strings the charts use.
 */
public final class RasterCanvas implements Canvas {
    private final BufferedImage image;
    private final Graphics2D g;

    /** A white image of that size; {@code scale} multiplies every coordinate (2 for sharper plots). */
    public RasterCanvas(int width, int height, double scale) {
        image = new BufferedImage((int) Math.ceil(width * scale), (int) Math.ceil(height * scale),
                BufferedImage.TYPE_INT_RGB);
        g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.scale(scale, scale);
    }

    @Override
    public void rect(double x, double y, double w, double h, String fill, String tip) {
        g.setColor(color(fill));
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, String stroke, double width, boolean dashed) {
        g.setColor(color(stroke));
        g.setStroke(dashed ? new BasicStroke((float) width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
                new float[] {6f, 4f}, 0f) : new BasicStroke((float) width));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    @Override
    public void polyline(double[] xy, String stroke, double width) {
        if (xy.length < 4) {
            return;
        }
        Path2D.Double p = new Path2D.Double();
        p.moveTo(xy[0], xy[1]);
        for (int i = 2; i + 1 < xy.length; i += 2) {
            p.lineTo(xy[i], xy[i + 1]);
        }
        g.setColor(color(stroke));
        g.setStroke(new BasicStroke((float) width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        g.draw(p);
    }

    @Override
    public void dot(double x, double y, double r, String fill, String tip) {
        g.setColor(color(fill));
        g.fill(new Ellipse2D.Double(x - r, y - r, 2 * r, 2 * r));
    }

    @Override
    public void text(double x, double y, String text, double size, Anchor anchor, String fill) {
        g.setColor(color(fill));
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 1).deriveFont((float) size));
        double w = g.getFontMetrics().getStringBounds(text, g).getWidth();
        double at = anchor == Anchor.START ? x : anchor == Anchor.MIDDLE ? x - w / 2 : x - w;
        g.drawString(text, (float) at, (float) y);
    }

    /** The finished image. */
    public BufferedImage image() {
        return image;
    }

    static Color color(String css) {
        String h = css.startsWith("#") ? css.substring(1) : css;
        if (h.length() == 3) {
            h = "" + h.charAt(0) + h.charAt(0) + h.charAt(1) + h.charAt(1) + h.charAt(2) + h.charAt(2);
        }
        if (h.length() != 6) {
            throw new IllegalArgumentException("colour must be #rgb or #rrggbb: " + css);
        }
        return new Color(Integer.parseInt(h, 16));
    }
}
