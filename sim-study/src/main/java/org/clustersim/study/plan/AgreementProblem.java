package org.clustersim.study.plan;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;

/**
 * One model on one cluster whose layouts the step walk and the simulation are compared on: a
 * seeded shuffle of its candidate scenarios, each a label and the YAML text to read. A GPU problem
 * draws from the plan's wide space ({@link DesignSpace#wide}) written into {@link BaseScenario}'s
 * document, exactly the candidates a plan screens; a TPU problem, which the plan does not form,
 * varies a MaxText mesh's data, FSDP, tensor and sequence axes, the microbatch and the remat
 * policy over one slice. The same seed gives the same candidates in the same order.
 *
 * @param name       the problem's label (model on cluster)
 * @param folder     the folder the candidates' relative paths resolve against
 * @param candidates every candidate, shuffled
 */
public record AgreementProblem(String name, Path folder, List<Candidate> candidates) {

    /** One candidate scenario: what it varies and its text, written when asked for. */
    public record Candidate(String label, Supplier<String> yaml) {
    }

    /** The remat policies a TPU problem draws from. */
    static final List<String> TPU_REMAT = List.of("full", "minimal", "save_qkv_proj", "save_dot_except_mlp", "none");

    /**
     * A GPU problem: the plan's wide space for {@code model} on {@code cluster} ({@code nodes}
     * servers of a single-server preset, 0 for the preset's own), shuffled with {@code seed}.
     */
    public static AgreementProblem gpu(String model, String cluster, int nodes, int globalBatch, int seqLen,
                                       long seed) {
        BaseScenario base = BaseScenario.of(null, model, cluster, nodes, globalBatch, seqLen);
        int layers = base.layers();
        List<Layout> layouts = new ArrayList<>(DesignSpace.wide(base.model(), layers, seqLen)
                .enumerate(base.gpus(), globalBatch, layers).layouts());
        Collections.shuffle(layouts, new Random(seed));
        String name = String.format(Locale.ROOT, "%s on %s%s, GBS %d x %d", model, cluster,
                nodes > 0 ? " x " + nodes : "", globalBatch, seqLen);
        List<Candidate> out = new ArrayList<>(layouts.size());
        for (Layout l : layouts) {
            out.add(new Candidate(l.label(), () -> base.scenarioText(l.slug(), l, layers)));
        }
        return new AgreementProblem(name, base.folder(), out);
    }

    /**
     * A TPU problem: {@code model} on one slice of {@code preset} shaped {@code topology}, every
     * mesh of data x fsdp x tensor x sequence filling the slice (tensor 1 to 8, sequence 1 to 4 as
     * far as each shard keeps 1,024 tokens), microbatch 1, 2 or 4 and the {@link #TPU_REMAT}
     * policies, shuffled with {@code seed}. The reader rejects those the batch does not divide.
     */
    public static AgreementProblem tpu(String model, String preset, String topology, int globalBatch, int seqLen,
                                       long seed) {
        int chips = 1;
        for (String d : topology.split("x")) {
            chips *= Integer.parseInt(d);
        }
        List<Candidate> out = new ArrayList<>();
        for (int tensor = 1; tensor <= 8; tensor *= 2) {
            for (int seq = 1; seq <= 4 && seqLen / seq >= DesignSpace.MIN_TOKENS_PER_CP_RANK; seq *= 2) {
                for (int fsdp = 1; fsdp <= chips; fsdp *= 2) {
                    if (chips % ((long) tensor * seq * fsdp) != 0) {
                        continue;
                    }
                    int data = chips / (tensor * seq * fsdp);
                    for (int mb = 1; mb <= 4; mb *= 2) {
                        for (String remat : TPU_REMAT) {
                            String label = String.format(Locale.ROOT, "data%d fsdp%d tensor%d sequence%d mb%d %s",
                                    data, fsdp, tensor, seq, mb, remat);
                            String yaml = String.format(Locale.ROOT, """
                                    name: %s
                                    cluster: {preset: %s, topology: %s}
                                    model: {preset: %s}
                                    parallelism:
                                      mesh: {ici_data: %d, ici_fsdp: %d, ici_tensor: %d, ici_sequence: %d}
                                    training: {globalBatch: %d, microBatch: %d, seqLen: %d, remat: %s}
                                    simulation: {replicas: one}
                                    """, label.replace(' ', '-'), preset, topology, model, data, fsdp, tensor, seq,
                                    globalBatch, mb, seqLen, remat);
                            out.add(new Candidate(label, () -> yaml));
                        }
                    }
                }
            }
        }
        Collections.shuffle(out, new Random(seed));
        return new AgreementProblem(String.format(Locale.ROOT, "%s on %s-%s, GBS %d x %d", model, preset, topology,
                globalBatch, seqLen), Path.of("").toAbsolutePath(), out);
    }
}
