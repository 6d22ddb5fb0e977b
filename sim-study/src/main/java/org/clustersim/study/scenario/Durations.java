package org.clustersim.study.scenario;

import org.clustersim.core.input.Section;
import java.util.Locale;

/** Simulated times as written in scenario files: {@code start}, or a number with ns, us, ms or s. */
final class Durations {
    private Durations() {
    }

    /** Parses {@code text}; on a bad value records an error on {@code key} of {@code section} and returns 0. */
    static long parseNs(String text, Section section, String key) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("start")) {
            return 0;
        }
        String[][] units = {{"ns", "1"}, {"us", "1000"}, {"ms", "1000000"}, {"s", "1000000000"}};
        for (String[] u : units) {
            if (t.endsWith(u[0])) {
                try {
                    double v = Double.parseDouble(t.substring(0, t.length() - u[0].length()).trim());
                    if (v >= 0 && v < 1e18) {
                        return Math.round(v * Long.parseLong(u[1]));
                    }
                } catch (NumberFormatException e) {
                    break;
                }
            }
        }
        section.error(key, "found '" + text + "', expected start or a time such as 250us, 15ms or 2.5s");
        return 0;
    }
}
