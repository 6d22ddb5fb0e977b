package org.clustersim.core.engine;

/**
 * Bytes to move from one device to another.
 *
 * @param srcDevice sending device
 * @param dstDevice receiving device
 * @param bytes     payload size, at least 0
 */
public record Flow(int srcDevice, int dstDevice, long bytes) {
    public Flow {
        if (bytes < 0) {
            throw new IllegalArgumentException("flow bytes must not be negative: " + bytes);
        }
    }
}
