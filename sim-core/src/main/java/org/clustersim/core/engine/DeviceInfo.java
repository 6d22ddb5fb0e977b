package org.clustersim.core.engine;

/**
 * What the engine and the trace need to know about one device.
 *
 * @param index dense device index, equal to the accelerator index in the topology
 * @param name  stable name such as {@code node0.gpu3}
 * @param node  server (trace process) the device belongs to
 */
public record DeviceInfo(int index, String name, int node) {
}
