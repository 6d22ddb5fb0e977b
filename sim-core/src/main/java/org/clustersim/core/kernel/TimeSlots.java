package org.clustersim.core.kernel;

/**
 * The home slot of an instant in an open-addressing table of pending instants, as both kernels
 * keep one (an action for an instant already pending joins it without a heap operation).
 * Fibonacci hashing spreads nanosecond times that differ in their low bits only.
 */
final class TimeSlots {
    private TimeSlots() {
    }

    /** The slot of time {@code t} in a table of {@code mask + 1} slots (a power of two). */
    static int of(long t, int mask) {
        long h = t * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
