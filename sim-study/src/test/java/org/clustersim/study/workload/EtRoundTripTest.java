package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

import org.clustersim.study.SimulatedStep;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.scenario.WorkloadScenarioReader;
import org.clustersim.study.workload.et.EtDef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bundled scenario's step written as Chakra ET ({@link EtTraceWriter}, what {@code run --et-out}
 * writes) and read back as a workload scenario on the same cluster gives the same step time.
 * The scenario is scenarios/gpt3-1.3b-pp4-gpipe.yaml at data-parallel degree 2 (8 GPUs of one DGX
 * H100): pipeline sends and receives between its 4 stages and the gradient all-reduces of its
 * replicas. Two things differ by design, so the model run turns interference off (the imported
 * path does not model it) and the comparison allows a tolerance: each compute node's duration is
 * rounded to the microsecond (Chakra's unit), off by at most 0.5 us, and a path through the step
 * holds at most the compute nodes of one replica's ranks, so the step may move by 0.5 us times
 * those nodes (104 us of a 71 ms step). Dropping the dependencies or the collectives' sizes moves
 * it by far more (checked below), so the round trip fails if either is lost.
 */
class EtRoundTripTest {
    private static final int DP = 2;

    @TempDir
    static Path tmp;

    private static long modelStepNs;
    private static EtTraceWriter writer;

    @BeforeAll
    static void writeTheBundledStep() throws IOException {
        String bundled = Files.readString(Path.of("..", "scenarios", "gpt3-1.3b-pp4-gpipe.yaml"));
        String variant = bundled.replace("gpusPerNode: 4", "gpusPerNode: 8").replace("  pp: 4", "  pp: 4\n  dp: " + DP)
                .replace("globalBatch: 8", "globalBatch: 16").replaceAll("(?s)\noutput:.*", "\n")
                + "simulation:\n  interference: false\n";
        assertTrue(variant.contains("dp: 2") && variant.contains("gpusPerNode: 8"), "the bundled file changed");
        Path file = tmp.resolve("rt.yaml");
        Files.writeString(file, variant);
        Scenario scenario = new ScenarioReader().read(file);
        SimulatedStep run = SimulatedStep.of(scenario, scenario.trainingStep(), false);
        modelStepNs = run.figures().stepTimeNs();
        writer = EtTraceWriter.of(run.result().timeline().graph(), "test");
    }

    /** The written traces, each node passed through {@code change}, read back and simulated on the same cluster. */
    private static long readBackNs(String folder, UnaryOperator<EtDef.Node> change) throws IOException {
        Path dir = tmp.resolve(folder);
        Files.createDirectories(dir);
        for (int r = 0; r < writer.ranks(); r++) {
            try (OutputStream out = Files.newOutputStream(dir.resolve("rt." + r + ".et"))) {
                EtDef.GlobalMetadata.newBuilder().setVersion(EtTraceWriter.SCHEMA_VERSION).build().writeDelimitedTo(out);
                for (EtDef.Node n : writer.nodes(r)) {
                    change.apply(n).writeDelimitedTo(out);
                }
            }
        }
        Path scenario = tmp.resolve(folder + ".yaml");
        Files.writeString(scenario, "name: back\ncluster:\n  preset: dgx-h100\n  gpusPerNode: 8\nworkload:\n"
                + "  chakraTrace: " + folder + "\n  computeFrom: duration\n");
        return ImportedStep.of(new WorkloadScenarioReader().read(scenario)).stepNs();
    }

    private static long toleranceNs() {
        return 500 * writer.counts().computes() / DP;
    }

    @Test
    void theStepReadBackTakesTheSimulatedStepTime() throws IOException {
        long back = readBackNs("same", n -> n);
        assertTrue(Math.abs(back - modelStepNs) <= toleranceNs(), "model step " + modelStepNs + " ns, read back "
                + back + " ns, tolerance " + toleranceNs() + " ns");
        EtTraceWriter.Counts c = writer.counts();
        assertTrue(c.collectives() > 0 && c.transfers() > 0, "the step has collectives and sends: " + c);
        assertEquals(0, c.undescribed(), "every communication described");
    }

    @Test
    void withoutDependenciesTheRoundTripFails() throws IOException {
        long back = readBackNs("nodeps", n -> n.toBuilder().clearDataDeps().clearCtrlDeps().build());
        assertTrue(Math.abs(back - modelStepNs) > toleranceNs(), "model " + modelStepNs + ", no deps " + back);
    }

    @Test
    void withoutCollectiveSizesTheRoundTripFails() throws IOException {
        long back = readBackNs("nosize", n -> {
            if (n.getType() != EtDef.NodeType.COMM_COLL_NODE) {
                return n;
            }
            EtDef.Node.Builder b = n.toBuilder().clearAttr();
            n.getAttrList().stream().filter(a -> !a.getName().equals("comm_size")).forEach(b::addAttr);
            return b.build();
        });
        assertTrue(Math.abs(back - modelStepNs) > toleranceNs(), "model " + modelStepNs + ", no sizes " + back);
    }

    @Test
    void everyRankHasItsFile() {
        assertEquals(8, writer.ranks());
        for (int r = 0; r < 8; r++) {
            assertTrue(writer.nodes(r).stream().anyMatch(n -> n.getType() == EtDef.NodeType.COMM_COLL_NODE),
                    "rank " + r + " takes part in its replica group's all-reduce");
        }
    }
}
