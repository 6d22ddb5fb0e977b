package org.clustersim.cli.report;

import java.util.Locale;

/** Value formats and evenly spaced "nice" tick values (1, 2, 5 x 10^k) for chart axes. */
public enum Axis {
    /** Nanoseconds, shown in s, ms or us. */
    DURATION_NS,
    /** A fraction, shown as a percentage. */
    PERCENT,
    /** Bytes, shown in GB. */
    GB,
    /** A plain number. */
    NUMBER;

    /** The label of a value. */
    public String format(double v) {
        return switch (this) {
            case DURATION_NS -> duration(v);
            case PERCENT -> trim(100 * v) + "%";
            case GB -> trim(v / 1e9) + " GB";
            case NUMBER -> trim(v);
        };
    }

    /** Tick values from 0 (or {@code min}) up to at least {@code max}, about {@code count} of them. */
    public static double[] ticks(double min, double max, int count) {
        if (!(max > min)) {
            max = min + 1;
        }
        double raw = (max - min) / Math.max(1, count);
        double mag = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = raw / mag < 1.5 ? mag : raw / mag < 3 ? 2 * mag : raw / mag < 7 ? 5 * mag : 10 * mag;
        double first = Math.floor(min / step) * step;
        int n = (int) Math.ceil((max - first) / step - 1e-9) + 1;
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            out[i] = first + i * step;
        }
        return out;
    }

    private static String duration(double ns) {
        double a = Math.abs(ns);
        if (a >= 1e9) {
            return trim(ns / 1e9) + " s";
        }
        if (a >= 1e6) {
            return trim(ns / 1e6) + " ms";
        }
        if (a >= 1e3) {
            return trim(ns / 1e3) + " us";
        }
        return trim(ns) + " ns";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, Math.abs(v) >= 100 || v == Math.rint(v) ? "%.0f"
                : Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
        if (s.contains(".")) {
            s = s.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return s.equals("-0") ? "0" : s;
    }
}
