package org.clustersim.cli.report;

import java.util.Map;

/**
 * The report's colours: fixed ones for the parts of a step (so every chart and report agrees),
 * a cycle of ten distinguishable hues (Tableau 10) for series, and one colour per microbatch
 * ({@link #microbatch}) that does not repeat over the hundreds a pipeline runs.
 */
public final class Palette {
    private static final String[] CYCLE = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

    private static final Map<String, String> PARTS = Map.ofEntries(
            Map.entry("compute", "#4e79a7"), Map.entry("interference", "#b07aa1"), Map.entry("bubble", "#d9d9d9"),
            Map.entry("other waits", "#a0a0a0"),
            Map.entry("tp-comm", "#e15759"), Map.entry("cp-comm", "#ff9da7"), Map.entry("pp-p2p", "#f28e2b"),
            Map.entry("dp-comm", "#59a14f"), Map.entry("ep-comm", "#edc948"), Map.entry("etp-comm", "#9c755f"),
            Map.entry("fsdp-ag", "#76b7b2"), Map.entry("fsdp-rs", "#8cd17d"), Map.entry("optimizer", "#79706e"));

    private Palette() {
    }

    /** The i-th colour of the cycle. */
    public static String cycle(int i) {
        return CYCLE[Math.floorMod(i, CYCLE.length)];
    }

    /** Hue step between consecutive microbatches: the golden angle, 360 / phi^2 degrees. */
    private static final double GOLDEN_ANGLE = 137.50776405003785;
    /** Lightness levels, stepped by microbatch modulo their count. */
    private static final double[] LIGHTNESS = {0.50, 0.36, 0.64, 0.43};

    /**
     * The colour of microbatch {@code mb}: its hue advances by the golden angle from one
     * microbatch to the next (neighbours far apart on the colour wheel, and no hue ever repeated)
     * and its lightness steps through four levels, so the microbatches whose hues do come close
     * (those 21, 34 or 55 apart) differ in lightness. Deterministic: the same microbatch has the
     * same colour in every report.
     */
    public static String microbatch(int mb) {
        int m = Math.max(0, mb);
        double hue = (m * GOLDEN_ANGLE) % 360;
        return hsl(hue, 0.65, LIGHTNESS[m % LIGHTNESS.length]);
    }

    /** {@code h} in degrees, {@code s} and {@code l} 0..1, as {@code #rrggbb}. */
    static String hsl(double h, double s, double l) {
        double c = (1 - Math.abs(2 * l - 1)) * s;
        double hp = h / 60;
        double x = c * (1 - Math.abs(hp % 2 - 1));
        double[] rgb = hp < 1 ? new double[] {c, x, 0} : hp < 2 ? new double[] {x, c, 0} : hp < 3
                ? new double[] {0, c, x} : hp < 4 ? new double[] {0, x, c} : hp < 5 ? new double[] {x, 0, c}
                : new double[] {c, 0, x};
        double m = l - c / 2;
        return hex((int) Math.round(255 * (rgb[0] + m)), (int) Math.round(255 * (rgb[1] + m)),
                (int) Math.round(255 * (rgb[2] + m)));
    }

    /** The colour of a step part or traffic kind; an unknown kind gets a stable colour from its name. */
    public static String part(String kind) {
        String c = PARTS.get(kind);
        return c != null ? c : cycle(kind.hashCode());
    }

    /** {@code colour} mixed with black ({@code amount} 0..1): backward passes are drawn darker than forwards. */
    public static String darker(String colour, double amount) {
        java.awt.Color c = RasterCanvas.color(colour);
        return hex((int) (c.getRed() * (1 - amount)), (int) (c.getGreen() * (1 - amount)),
                (int) (c.getBlue() * (1 - amount)));
    }

    /** {@code colour} mixed with white ({@code amount} 0..1). */
    public static String lighter(String colour, double amount) {
        java.awt.Color c = RasterCanvas.color(colour);
        return hex(mix(c.getRed(), amount), mix(c.getGreen(), amount), mix(c.getBlue(), amount));
    }

    /** White to dark red through orange, for heat maps: {@code v} from 0 to 1. */
    public static String heat(double v) {
        double x = Math.max(0, Math.min(1, v));
        int r;
        int g;
        int b;
        if (x < 0.5) {
            double t = x / 0.5;
            r = (int) Math.round(255 + t * (253 - 255));
            g = (int) Math.round(255 + t * (141 - 255));
            b = (int) Math.round(255 + t * (60 - 255));
        } else {
            double t = (x - 0.5) / 0.5;
            r = (int) Math.round(253 + t * (128 - 253));
            g = (int) Math.round(141 + t * (0 - 141));
            b = (int) Math.round(60 + t * (38 - 60));
        }
        return hex(r, g, b);
    }

    private static int mix(int v, double amount) {
        return (int) Math.round(v + (255 - v) * amount);
    }

    private static String hex(int r, int g, int b) {
        return String.format("#%02x%02x%02x", r, g, b);
    }
}
