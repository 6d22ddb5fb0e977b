package org.clustersim.study.calibration;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * How numbers are written in a device profile and in the calibration report: the shortest
 * decimal that reads back as the same double (measured values, as the user gave them), and
 * fitted constants rounded to four significant digits, so that the file does not claim more
 * precision than a fit over a few dozen measurements has.
 */
public final class ProfileNumber {
    /** Significant digits of a fitted constant. */
    public static final int FITTED_DIGITS = 4;

    private ProfileNumber() {
    }

    /** {@code x} rounded to {@link #FITTED_DIGITS} significant digits (half-even). */
    public static double fitted(double x) {
        if (x == 0 || !Double.isFinite(x)) {
            return x;
        }
        return new BigDecimal(x).round(new MathContext(FITTED_DIGITS, RoundingMode.HALF_EVEN)).doubleValue();
    }

    /** The shortest plain decimal for {@code x}: 780 rather than 780.0, 0.4589, never an exponent. */
    public static String plain(double x) {
        if (x == Math.rint(x) && Math.abs(x) < 1e15) {
            return Long.toString((long) x);
        }
        return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
    }
}
