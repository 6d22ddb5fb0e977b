package org.clustersim.core.reliability;

import java.util.List;

/**
 * Default mean times between failures per component, and the failure classes of a cluster.
 *
 * <p>Derived from the interruption causes in the Llama 3 report (Meta, "The Llama 3 Herd of
 * Models", 2024, table 5): 419 unexpected interruptions of a 16,384-GPU job on 2,048 hosts in
 * 54 days. GPU causes (faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17, silent data
 * corruption 6, thermal interface and sensor 6: 268) give a GPU MTBF of 16,384 x 1,296 h / 268
 * = 79,200 h; host causes (software bugs 54, host maintenance 32, NCCL watchdog 7, SSD 3,
 * power supply 3, chassis 2, IO board 2, dependency 2, CPU 2, system memory 2: 109) give a
 * host MTBF of 2,048 x 1,296 h / 109 = 24,400 h; NICs (7) 3.03 M h. The 35 network switch and
 * cable interruptions are not split in the report; we charge them to cables, taking three
 * scale-out cables per GPU (NIC to leaf, leaf to spine, spine to core: 49,152) for a cable
 * MTBF of 1.82 M h, and assume 1 M h for a switch. These are inputs about components; the
 * effective training time the report also gives is never fitted to.
 */
public final class FailureRates {
    /** GPU MTBF, hours. */
    public static final double GPU_MTBF_H = 79_200;
    /** Host (server) MTBF, hours: software, maintenance and non-GPU hardware. */
    public static final double HOST_MTBF_H = 24_400;
    /** NIC MTBF, hours. */
    public static final double NIC_MTBF_H = 3_030_000;
    /** Scale-out cable (link) MTBF, hours. */
    public static final double LINK_MTBF_H = 1_820_000;
    /** Scale-out switch MTBF, hours (an assumption; see the class comment). */
    public static final double SWITCH_MTBF_H = 1_000_000;

    private FailureRates() {
    }

    /**
     * The classes of a job on {@code gpus} GPUs in {@code hosts} servers with as many NICs as
     * GPUs, {@code cables} scale-out cables and {@code switches} scale-out switches, with the
     * given MTBFs (hours).
     */
    public static List<FailureClass> of(long gpus, long hosts, long cables, long switches, double gpuMtbf,
                                        double hostMtbf, double linkMtbf, double switchMtbf) {
        return List.of(new FailureClass("gpu", gpus, gpuMtbf), new FailureClass("host", hosts, hostMtbf),
                new FailureClass("nic", gpus, NIC_MTBF_H), new FailureClass("link", cables, linkMtbf),
                new FailureClass("switch", switches, switchMtbf));
    }
}
