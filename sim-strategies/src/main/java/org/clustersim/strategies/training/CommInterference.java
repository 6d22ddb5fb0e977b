package org.clustersim.strategies.training;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.device.CommKernels;

/**
 * Which of a training step's communication tasks run as SM-driven kernels beside compute, and
 * what each takes, from the device profile's {@link CommKernels}: pipeline sends and receives
 * are NCCL point-to-point kernels; every other collective is an NCCL collective kernel, of the
 * network kind when any of its flows crosses between servers, of the NVLink kind otherwise.
 * Tensor-parallel overlap chunks carry their own SM counts (Transformer Engine's userbuffers:
 * copy-engine ring exchanges take none). Each task is classified by its tag: its traffic kind
 * and transport. A task's kind is decided once per plan (plans are shared
 * by every layer and microbatch).
 */
final class CommInterference implements Interference {
    private final CommKernels kernels;
    private final double p2p;
    private final double ring;
    private final double userbuffers;
    private final List<DeviceInfo> devices;
    private final Map<Work, Double> shares = new IdentityHashMap<>();

    CommInterference(CommKernels kernels, TaskGraph graph) {
        this.kernels = kernels;
        this.p2p = kernels.computeShare(kernels.p2p());
        this.ring = TensorParallelOverlap.computeShare(TaskTag.Transport.RING_EXCHANGE, kernels);
        this.userbuffers = TensorParallelOverlap.computeShare(TaskTag.Transport.USERBUFFERS, kernels);
        this.devices = graph.devices();
    }

    @Override
    public double computeShare(Task task) {
        TaskTag tag = task.tag();
        if (tag.traffic() == TaskTag.Traffic.PIPELINE_SEND) {
            return p2p;
        }
        if (tag.transport() == TaskTag.Transport.RING_EXCHANGE) {
            return ring;
        }
        if (tag.transport() == TaskTag.Transport.USERBUFFERS) {
            return userbuffers;
        }
        return shares.computeIfAbsent(task.work(), w -> kernels.computeShare(
                crossesServers((Work.Communication) w) ? kernels.network() : kernels.nvlink()));
    }

    private boolean crossesServers(Work.Communication w) {
        for (Phase p : w.phases()) {
            for (Flow f : p.flows()) {
                if (devices.get(f.srcDevice()).node() != devices.get(f.dstDevice()).node()) {
                    return true;
                }
            }
        }
        return false;
    }
}
