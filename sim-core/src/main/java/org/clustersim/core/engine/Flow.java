package org.clustersim.core.engine;

/**
 * Bytes to move from one device to another.
 *
 * @param srcDevice sending device
 * @param dstDevice receiving device
 * @param bytes     payload size, at least 0
 * @param channel   which of several parallel connections between the pair carries it (ECMP hashes on it)
 */
public record Flow(int srcDevice, int dstDevice, long bytes, int channel) {
    public Flow {
        if (bytes < 0) {
            throw new IllegalArgumentException("flow bytes must not be negative: " + bytes);
        }
    }

    /** A flow on channel 0. */
    public Flow(int srcDevice, int dstDevice, long bytes) {
        this(srcDevice, dstDevice, bytes, 0);
    }
}
