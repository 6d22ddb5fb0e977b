package org.clustersim.cli.output;

import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.TorusSpec;

/**
 * The nouns a command's text uses for a cluster's accelerators and the machines holding them: GPUs
 * on servers, TPU chips on hosts (a TPU7x chip's TensorCores, which JAX sees one device each:
 * devices on hosts). Why: a TPU run's summary spoke of GPUs and servers. Only the printed text
 * follows the cluster; JSON and CSV field names stay as they are ({@code gpus},
 * {@code tflopsPerGpu}) whatever the accelerator.
 *
 * @param device  one accelerator
 * @param devices several
 * @param server  one machine
 * @param servers several
 */
public record DeviceWords(String device, String devices, String server, String servers) {
    /** NVIDIA clusters. */
    public static final DeviceWords GPU = new DeviceWords("GPU", "GPUs", "server", "servers");
    /** TPU slices of one device per chip. */
    public static final DeviceWords TPU = new DeviceWords("chip", "chips", "host", "hosts");
    /** TPU slices whose chips hold several devices (TPU7x: two TensorCores). */
    public static final DeviceWords TPU_CORES = new DeviceWords("device", "devices", "host", "hosts");

    /** The words for {@code cluster}'s accelerators: a torus is a TPU slice (or several). */
    public static DeviceWords of(ClusterSpec cluster) {
        if (cluster instanceof TorusSpec t) {
            return t.devicesPerChip() > 1 ? TPU_CORES : TPU;
        }
        return GPU;
    }

    /** {@code n} accelerators: {@code 1 GPU}, {@code 512 chips}. */
    public String devices(long n) {
        return n + " " + (n == 1 ? device : devices);
    }

    /** {@code n} machines: {@code 1 server}, {@code 64 hosts}. */
    public String servers(long n) {
        return n + " " + (n == 1 ? server : servers);
    }
}
