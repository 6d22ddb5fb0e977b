package org.clustersim.core.engine;

/** Whether a stream runs kernels on the device's compute units or moves data. */
public enum StreamKind {
    COMPUTE,
    COMMUNICATION
}
