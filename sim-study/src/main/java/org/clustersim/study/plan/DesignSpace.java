package org.clustersim.study.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.strategies.pipeline.ScheduleKind;

/**
 * The values a plan may choose from, one list per knob, and their product as {@link Layout}s in
 * one fixed order (schedule, tp, pp, cp, ep, chunks, microbatch, recomputation, ZeRO, each in the
 * order given). Layouts that cannot be formed at all are left out and counted by reason: tp x pp
 * x cp not dividing the GPUs, a global batch that the data-parallel microbatches do not divide,
 * more pipeline stages than layers. Chunk counts apply to the interleaved schedule only (the V
 * shapes always run 2, the others 1). Whatever else is wrong with a layout the scenario reader
 * finds, as it does for a file.
 *
 * @param tp        tensor-parallel sizes
 * @param pp        pipeline-parallel sizes
 * @param cp        context-parallel sizes
 * @param ep        expert-parallel sizes
 * @param vp        chunk counts for the interleaved schedule
 * @param mb        microbatch sizes
 * @param recompute recomputation policies (none, selective, full)
 * @param zero      ZeRO stages
 * @param schedule  schedule ids
 */
public record DesignSpace(List<Integer> tp, List<Integer> pp, List<Integer> cp, List<Integer> ep, List<Integer> vp,
                          List<Integer> mb, List<String> recompute, List<Integer> zero, List<String> schedule) {

    /** Layouts and what was left out. */
    public record Enumeration(List<Layout> layouts, Map<String, Integer> dropped) {
    }

    /** Every layout of this space on {@code gpus} GPUs for a model of {@code layers} layers. */
    public Enumeration enumerate(int gpus, int globalBatch, int layers) {
        List<Layout> out = new ArrayList<>();
        Map<String, Integer> dropped = new TreeMap<>();
        for (String s : schedule) {
            ScheduleKind kind = kind(s);
            List<Integer> chunks = kind.takesChunks() ? vp.stream().filter(v -> v >= 2).toList()
                    : List.of(Math.max(1, kind.fixedChunks()));
            for (int t : tp) {
                for (int p : pp) {
                    for (int c : cp) {
                        for (int e : ep) {
                            for (int v : chunks) {
                                for (int m : mb) {
                                    for (String r : recompute) {
                                        for (int z : zero) {
                                            int model = t * p * c;
                                            String why = null;
                                            if (gpus % model != 0) {
                                                why = "tp x pp x cp does not divide the " + gpus + " GPUs";
                                            } else if (globalBatch % (m * (gpus / model)) != 0) {
                                                why = "microbatch x dp does not divide the global batch";
                                            } else if (p * v > layers) {
                                                why = "more pipeline stages than layers";
                                            }
                                            if (why != null) {
                                                dropped.merge(why, 1, Integer::sum);
                                                continue;
                                            }
                                            out.add(new Layout(t, p, c, e, v, gpus / model, m, r, z, s));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return new Enumeration(out, dropped);
    }

    /** The schedule with id {@code id}. */
    static ScheduleKind kind(String id) {
        for (ScheduleKind k : ScheduleKind.values()) {
            if (k.id().equals(id)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown schedule " + id);
    }
}
