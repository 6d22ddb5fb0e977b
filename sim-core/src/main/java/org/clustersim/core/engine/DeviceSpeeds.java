package org.clustersim.core.engine;

import java.util.Arrays;

/**
 * How fast each device computes relative to its nominal rate: 1 healthy, 0.8 a straggler that
 * needs 1.25x as long for every kernel (thermal throttling, a bad HBM stack, a noisy
 * neighbour). A compute task occupying several devices in lockstep runs at its slowest
 * device's speed; a change applies to tasks that start after it.
 */
public final class DeviceSpeeds {
    private final double[] speed;
    private boolean anySlow;

    public DeviceSpeeds(int devices) {
        speed = new double[devices];
        Arrays.fill(speed, 1.0);
    }

    /**
     * Sets a device's speed.
     *
     * @throws IllegalArgumentException unless 0 < speed
     */
    public void set(int device, double s) {
        if (!(s > 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException("a device's speed must be positive and finite: " + s);
        }
        speed[device] = s;
        anySlow = false;
        for (double v : speed) {
            anySlow |= v != 1.0;
        }
    }

    public double of(int device) {
        return speed[device];
    }

    /** Whether every device runs at nominal speed (the common case, checked first on the hot path). */
    boolean allNominal() {
        return !anySlow;
    }
}
