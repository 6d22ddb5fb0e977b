package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;

/**
 * The MoE layers' own mesh, folded over the attention layers' GPUs of each pipeline stage, as
 * Megatron-core builds it ("MoE Parallel Folding", Liu et al., arXiv 2504.14960;
 * {@code megatron/core/parallel_state.py}, the expert {@code RankGenerator} of order
 * tp-ep-dp-pp beside the dense one of order tp-cp-dp-pp): the tp x cp x dp GPUs of a stage are
 * numbered TP fastest, then CP, then DP (Megatron-core's rank order with pipeline parallelism
 * outermost), and the same numbers are cut into expert TP (etp) fastest, then expert
 * parallelism (ep), then expert data parallelism (edp = tp cp dp / (etp ep)). Pipeline groups
 * are the same for both meshes, as Megatron-core asserts.
 *
 * <p>So EP 32 with TP 2 x DP 16 and etp 1 puts an EP group on 32 consecutive stage numbers (16
 * replicas x both TP ranks), each GPU holding 1/32 of the experts whole; with etp = tp and cp = 1
 * an EP group is ep consecutive DP replicas at one TP rank (expert parallelism carved out of data
 * parallelism). Where the mesh order puts GPUs physically follows from {@link Mesh#device}.
 *
 * @param mesh the layout
 */
public record ExpertMesh(Mesh mesh) {

    /** Where a GPU sits in the expert mesh. */
    public record Coordinates(int etp, int ep, int edp, int pp) {
    }

    public int etp() {
        return mesh.etp();
    }

    public int ep() {
        return mesh.ep();
    }

    /** Expert data-parallel size: the GPUs of a stage holding the same experts. */
    public int edp() {
        return mesh.tp() * mesh.cp() * mesh.dp() / (mesh.etp() * mesh.ep());
    }

    /** GPUs of one pipeline stage (tp x cp x dp). */
    public int stageSize() {
        return mesh.tp() * mesh.cp() * mesh.dp();
    }

    /** A GPU's number inside its stage: TP fastest, then CP, then DP. */
    public int stageIndex(int device) {
        Mesh.Coordinates at = mesh.coordinates(device);
        return at.tp() + mesh.tp() * (at.cp() + mesh.cp() * at.dp());
    }

    /** The GPU with number {@code index} inside stage {@code p}. */
    public int deviceAt(int p, int index) {
        int t = index % mesh.tp();
        int c = index / mesh.tp() % mesh.cp();
        int d = index / (mesh.tp() * mesh.cp());
        return mesh.device(t, c, p, d);
    }

    public Coordinates coordinates(int device) {
        int i = stageIndex(device);
        return new Coordinates(i % etp(), i / etp() % ep(), i / (etp() * ep()), mesh.coordinates(device).pp());
    }

    /** The GPU at (expert TP rank, EP rank, expert DP rank, pipeline rank). */
    public int device(int et, int e, int ed, int p) {
        return deviceAt(p, et + etp() * (e + ep() * ed));
    }

    /** The GPUs a GPU exchanges tokens with (dispatch and combine all-to-alls), in EP rank order. */
    public int[] expertParallelGroup(int device) {
        Coordinates at = coordinates(device);
        int[] group = new int[ep()];
        for (int e = 0; e < group.length; e++) {
            group[e] = device(at.etp(), e, at.edp(), at.pp());
        }
        return group;
    }

    /** The GPUs splitting the same experts' matrices with a GPU (the routed tokens' gather), in rank order. */
    public int[] tensorGroup(int device) {
        Coordinates at = coordinates(device);
        int[] group = new int[etp()];
        for (int et = 0; et < group.length; et++) {
            group[et] = device(et, at.ep(), at.edp(), at.pp());
        }
        return group;
    }

    /** The GPUs holding the same expert weights as a GPU, which reduce their gradients together, in rank order. */
    public int[] dataGroup(int device) {
        Coordinates at = coordinates(device);
        int[] group = new int[edp()];
        for (int ed = 0; ed < group.length; ed++) {
            group[ed] = device(at.etp(), at.ep(), ed, at.pp());
        }
        return group;
    }

    /** Every EP group of stage {@code p}, by expert DP rank, then expert TP rank. */
    public List<int[]> expertParallelGroups(int p) {
        List<int[]> groups = new ArrayList<>();
        for (int ed = 0; ed < edp(); ed++) {
            for (int et = 0; et < etp(); et++) {
                groups.add(expertParallelGroup(device(et, 0, ed, p)));
            }
        }
        return groups;
    }

    /** Every expert DP group of stage {@code p}, by EP rank, then expert TP rank. */
    public List<int[]> dataGroups(int p) {
        List<int[]> groups = new ArrayList<>();
        for (int e = 0; e < ep(); e++) {
            for (int et = 0; et < etp(); et++) {
                groups.add(dataGroup(device(et, e, 0, p)));
            }
        }
        return groups;
    }
}
