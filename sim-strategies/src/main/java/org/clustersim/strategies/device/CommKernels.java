package org.clustersim.strategies.device;

/**
 * What the collective library's kernels take from a GPU while they run beside compute: NCCL
 * gives every channel one thread block on an SM of its own (never shared with a compute kernel)
 * and moves the data through HBM, so an overlapped GEMM loses those SMs and some memory
 * bandwidth. Figures per kind of transfer, from the library's defaults and single-node
 * measurements (kernels.md, section 5): on 8 x H100 an NCCL all-gather beside an 8192^3 GEMM
 * cost the GEMM about 21% of its rate, of which 24 channels' SMs explain 18 points.
 *
 * @param sms     the GPU's streaming multiprocessors
 * @param nvlink  a collective inside the scale-up domain (NVLink / NVSwitch)
 * @param network a collective whose flows cross the network (its kernel drives the NICs too)
 * @param p2p     a point-to-point send/receive (pipeline stages, context-parallel rings)
 */
public record CommKernels(int sms, Kernel nvlink, Kernel network, Kernel p2p) {

    public CommKernels {
        for (Kernel k : new Kernel[] {nvlink, network, p2p}) {
            if (k.sms() > sms) {
                throw new IllegalArgumentException("a communication kernel cannot take " + k.sms() + " of " + sms + " SMs");
            }
        }
    }

    /**
     * One kind of communication kernel.
     *
     * @param sms      SMs it occupies (its channels or thread blocks); 0 for copy-engine or RDMA-only transfers
     * @param hbmShare the further fraction of a compute kernel's rate lost to its memory traffic
     */
    public record Kernel(int sms, double hbmShare) {
        public Kernel {
            if (sms < 0 || !(hbmShare >= 0 && hbmShare < 1)) {
                throw new IllegalArgumentException("bad communication kernel: " + sms + " SMs, HBM share " + hbmShare);
            }
        }
    }

    /** The fraction of a compute kernel's rate this kind of communication takes while it runs. */
    public double computeShare(Kernel k) {
        return Math.min(0.9, (double) k.sms() / sms + k.hbmShare());
    }
}
