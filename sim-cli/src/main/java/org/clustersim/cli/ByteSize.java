package org.clustersim.cli;

import java.util.Locale;

import org.clustersim.core.input.InputException;

/** Byte sizes as written on the command line: 8, 8B, 64KiB, 16M, 8GiB, 1GB (K/M/G/T are binary, KB/MB/GB decimal). */
final class ByteSize {
    private ByteSize() {
    }

    static long parse(String option, String text) {
        String s = text.trim();
        String lower = s.toLowerCase(Locale.ROOT);
        long mult = 1;
        String[][] units = {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"}, {"tib", "1099511627776"},
            {"kb", "1000"}, {"mb", "1000000"}, {"gb", "1000000000"}, {"tb", "1000000000000"}, {"k", "1024"},
            {"m", "1048576"}, {"g", "1073741824"}, {"t", "1099511627776"}, {"b", "1"}};
        for (String[] u : units) {
            if (lower.endsWith(u[0])) {
                mult = Long.parseLong(u[1]);
                lower = lower.substring(0, lower.length() - u[0].length());
                break;
            }
        }
        try {
            double v = Double.parseDouble(lower);
            if (!(v >= 0) || v * mult > Long.MAX_VALUE / 2) {
                throw new NumberFormatException();
            }
            return Math.round(v * mult);
        } catch (NumberFormatException e) {
            throw new InputException(option + ": cannot read size '" + text + "'; expected a number with an optional "
                    + "unit such as 8B, 64KiB, 16MiB or 8GiB");
        }
    }

    /** A size for tables: the largest binary unit that divides it, else bytes. */
    static String format(long bytes) {
        String[] names = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        long v = bytes;
        while (u < names.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + names[u];
    }
}
