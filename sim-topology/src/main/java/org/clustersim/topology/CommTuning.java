package org.clustersim.topology;

/**
 * How efficiently collective libraries use a machine's links, and what each algorithm step
 * costs in latency: the constants a collective model needs besides bandwidth.
 *
 * <p>Protocol latencies follow NCCL's published tuning model (src/graph/tuning.cc): a base
 * latency per protocol and a per-step latency per medium (NVLink or network). Bandwidth
 * efficiencies are the fractions of line rate NCCL's maintainers state a ring reaches (about
 * 370 of 450 GB/s on NVLink4, 46-48 of 50 GB/s per NDR NIC); the low-latency protocols lose
 * further bandwidth to their flag words (LL carries 4 bytes of flag per 4 of data and is
 * further capped per channel; LL128 120 of every 128 bytes). NVLS is NVSwitch's in-network
 * reduction; its efficiency is the stated peak (about 480 GB/s bus bandwidth on 8 GPUs).
 *
 * @param nvlinkEfficiency fraction of NVLink line rate a collective sustains
 * @param netEfficiency    fraction of NIC line rate a collective sustains
 * @param ll               the low-latency protocol
 * @param ll128            the 128-byte low-latency protocol
 * @param simple           the bulk protocol
 * @param nvlsCapable      whether the scale-up switch reduces in-network (NVLS)
 * @param nvlsEfficiency   fraction of NVLink line rate NVLS sustains per GPU and direction
 * @param nvlsStepNs       latency of each of NVLS's two steps (reduce, multicast)
 */
public record CommTuning(double nvlinkEfficiency, double netEfficiency, Protocol ll, Protocol ll128,
                         Protocol simple, boolean nvlsCapable, double nvlsEfficiency, long nvlsStepNs) {

    /**
     * One protocol's costs.
     *
     * @param baseNs       fixed latency of one collective call
     * @param nvlinkStepNs latency of each algorithm step over NVLink
     * @param netStepNs    latency of each algorithm step over the network
     * @param efficiency   fraction of the medium's sustained rate this protocol reaches
     */
    public record Protocol(long baseNs, long nvlinkStepNs, long netStepNs, double efficiency) {
    }

    /** NCCL's ring constants with NVLink4 / NDR efficiencies and NVLS (H100 systems). */
    public static final CommTuning H100 = new CommTuning(370.0 / 450.0, 47.0 / 50.0,
            new Protocol(6_600, 600, 2_700, 0.25), new Protocol(14_000, 1_900, 4_000, 120.0 / 128.0),
            new Protocol(8_400, 3_400, 14_000, 1.0), true, 480.0 / (2 * 7.0 / 8.0) / 450.0, 25_000);

    /**
     * TPU slices: XLA's collectives have one protocol; ICI sustains about 74% of line rate (a
     * v5e all-gather of 34 MB over an axis of 4 took 680 us, JAX scaling book; its theory, 560
     * us, assumed 45 GB/s per link, and at the official 50 GB/s it is 504 us) and DCN is taken at
     * 90%. Per-step latency is small beside the 1 us per ICI hop already on the links; the base
     * latency is an assumption (5 us).
     */
    public static final CommTuning TPU = new CommTuning(560.0 / 680.0 * 45.0 / 50.0, 0.9,
            new Protocol(5_000, 500, 5_000, 1.0), new Protocol(5_000, 500, 5_000, 1.0),
            new Protocol(5_000, 500, 5_000, 1.0), false, 0, 0);

    /** The same protocol constants on NVLink3 / HDR without NVLS (A100 systems). */
    public static final CommTuning A100 = new CommTuning(370.0 / 450.0, 24.0 / 25.0,
            new Protocol(6_600, 600, 2_700, 0.25), new Protocol(14_000, 1_900, 4_000, 120.0 / 128.0),
            new Protocol(8_400, 3_400, 14_000, 1.0), false, 0, 0);
}
