package org.clustersim.study.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.core.input.InputFileException;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several jobs on one cluster: {@link SharedScenarioReader} and {@link SharedRun}. */
class SharedRunTest {
    /** A 1.3B GPT on one or two servers: TP 8 inside each server, DP across them. */
    private static String job(int dp, int steps) {
        return "    model: {preset: gpt3-1.3b}\n"
                + "    parallelism: {tp: 8, dp: " + dp + "}\n"
                + "    training: {globalBatch: " + 4 * dp + ", microBatch: 1, seqLen: 2048}\n"
                + "    simulation: {steps: " + steps + "}\n";
    }

    private static String cluster(int nodes) {
        return "cluster: {preset: dgx-h100, nodes: " + nodes + ", fabric: rail-optimized}\n";
    }

    @TempDir
    Path dir;

    private SharedScenario shared(String text) throws java.io.IOException {
        Path f = dir.resolve("shared.yaml");
        Files.writeString(f, text);
        return new SharedScenarioReader().read(f);
    }

    private Scenario single(String text) throws java.io.IOException {
        Path f = dir.resolve("single.yaml");
        Files.writeString(f, text);
        return new ScenarioReader().read(f);
    }

    /** Every figure of two measurements, the arrays by content. */
    private static void assertSameFigures(StepFigures a, StepFigures b) {
        assertEquals(a.stepTimeNs(), b.stepTimeNs());
        assertEquals(a.steps(), b.steps());
        assertEquals(a.mfu(), b.mfu());
        assertEquals(a.exposedCommFraction(), b.exposedCommFraction());
        assertEquals(a.exposedByKindNs(), b.exposedByKindNs());
        assertEquals(a.idleFraction(), b.idleFraction());
        assertEquals(a.pipelineBubbleFraction(), b.pipelineBubbleFraction());
        assertEquals(a.otherWaitFraction(), b.otherWaitFraction());
        assertEquals(a.devices(), b.devices());
        assertEquals(a.events(), b.events());
        assertEquals(a.makespanNs(), b.makespanNs());
        assertArrayEquals(a.linkBytes(), b.linkBytes());
        assertArrayEquals(a.linkBusyNs(), b.linkBusyNs());
    }

    @Test
    void aJobAloneInASharedFileReproducesItsScenarioFigure() throws Exception {
        String sections = job(2, 2).replace("\n    ", "\n").replaceFirst("^    ", "");
        Scenario alone = single(cluster(2) + "name: gpt\n" + sections);
        StepFigures expected = SimulatedStep.of(alone, alone.trainingStep(), false).figures();
        SharedRun run = SharedRun.of(shared(cluster(2) + "jobs:\n  - name: gpt\n    placement: first-fit\n"
                + job(2, 2)), false, 2);
        assertEquals(1, run.jobs().size());
        assertSameFigures(expected, run.jobs().get(0).figures());
        assertEquals(1.0, run.jobs().get(0).slowdown());
        assertEquals(1, run.jobs().get(0).measuredStep(), "the last of two steps");
    }

    @Test
    void twoJobsUnderTheirOwnLeafPortsRunExactlyAsFastAsAlone() throws Exception {
        // servers 0-1 and 2-3 of one SU: each job's DP traffic goes GPU, NIC, rail leaf, NIC, GPU
        // over its own servers' cables; the leaves switch without a link of their own to share
        SharedRun run = SharedRun.of(shared(cluster(4) + "jobs:\n"
                + "  - name: a\n    placement: {servers: 0-1}\n" + job(2, 2)
                + "  - name: b\n    placement: {servers: [2, 3]}\n" + job(2, 2)), false, 2);
        Scenario own = single(cluster(2) + job(2, 2).replace("\n    ", "\n").replaceFirst("^    ", ""));
        StepFigures separate = SimulatedStep.of(own, own.trainingStep(), false).figures();
        for (SharedRun.JobRun j : run.jobs()) {
            assertEquals(separate.stepTimeNs(), j.figures().stepTimeNs(), j.job().name());
            assertEquals(separate.steps(), j.figures().steps());
            assertEquals(1.0, j.slowdown());
            assertTrue(j.overlapped());
        }
        assertArrayEquals(new int[] {2, 3}, run.jobs().get(1).job().servers());
        assertEquals(2 * separate.tokensPerSecond(), run.tokensPerSecond(), 1e-6 * separate.tokensPerSecond());
    }

    @Test
    void spreadDealsAJobOverTheUnitsAndPackedKeepsItInOne() throws Exception {
        // two SUs of 8 servers at 4:1 above the leaves; spread deals each job's servers over both
        // SUs, so the DP rings of both cross the same spines
        String file = "cluster: {preset: dgx-h100, nodes: 64, fabric: rail-optimized, oversubscription: 4}\njobs:\n"
                + "  - name: a\n    placement: spread\n" + job(2, 1)
                + "  - name: b\n    placement: spread\n" + job(2, 1);
        SharedRun spread = SharedRun.of(shared(file), false, 2);
        SharedRun packed = SharedRun.of(shared(file.replace("spread", "packed")), false, 2);
        assertArrayEquals(new int[] {0, 32}, spread.jobs().get(0).job().servers());
        assertArrayEquals(new int[] {1, 33}, spread.jobs().get(1).job().servers());
        assertArrayEquals(new int[] {0, 1}, packed.jobs().get(0).job().servers());
        assertArrayEquals(new int[] {2, 3}, packed.jobs().get(1).job().servers());
        for (int i = 0; i < 2; i++) {
            assertEquals(1.0, packed.jobs().get(i).slowdown(), "packed: each job inside one SU");
            assertTrue(spread.jobs().get(i).alone().stepTimeNs() > packed.jobs().get(i).alone().stepTimeNs(),
                    "alone, crossing the 4:1 spines costs more than staying under one leaf");
        }
    }

    @Test
    void aJobNamingAScenarioFileRunsItsLayoutOnTheSharedClusterIgnoringThatFilesCluster() throws Exception {
        Files.writeString(dir.resolve("own.yaml"), "cluster: {preset: dgx-a100, nodes: 7}\nnetwork: {fidelity: analytical}\n"
                + job(2, 1).replace("\n    ", "\n").replaceFirst("^    ", ""));
        SharedScenario s = shared(cluster(4) + "network: {fidelity: flow}\njobs:\n"
                + "  - name: mine\n    scenario: own.yaml\n    placement: {servers: 2-3}\n");
        Scenario job = s.jobs().get(0).scenario();
        assertEquals("mine", job.name());
        assertEquals("h100-sxm", job.cluster().accelerator().name());
        assertEquals(2, job.cluster().nodes(), "the shared servers, as many as the layout needs");
        assertEquals(org.clustersim.core.Simulation.Fidelity.FLOW, job.fidelity());
        assertArrayEquals(new int[] {16, 17, 31}, new int[] {s.jobs().get(0).deviceMap(8)[0],
            s.jobs().get(0).deviceMap(8)[1], s.jobs().get(0).deviceMap(8)[15]});
        InputFileException both = assertThrows(InputFileException.class, () -> shared(cluster(4) + "jobs:\n"
                + "  - name: mine\n    scenario: own.yaml\n    placement: packed\n    model: {preset: gpt3-1.3b}\n"));
        assertTrue(both.getMessage().contains("jobs[0].model: found both scenario: own.yaml and a model section"),
                both.getMessage());
    }

    @Test
    void aStragglerOfTheSharedFileSlowsTheJobOnItsServerAndNotTheOther() throws Exception {
        String jobs = "jobs:\n  - name: a\n    placement: {servers: 0-1}\n" + job(2, 1)
                + "  - name: b\n    placement: {servers: 2-3}\n" + job(2, 1);
        SharedRun healthy = SharedRun.of(shared(cluster(4) + jobs), false, 2);
        SharedRun slow = SharedRun.of(shared(cluster(4) + "faults:\n  - gpu: node1.gpu3\n    speed: 0.5\n" + jobs),
                false, 2);
        assertTrue(slow.jobs().get(0).figures().stepTimeNs() > healthy.jobs().get(0).figures().stepTimeNs());
        assertEquals(slow.jobs().get(0).alone().stepTimeNs(), slow.jobs().get(0).figures().stepTimeNs(),
                "alone on the same servers with the same straggler");
        assertEquals(healthy.jobs().get(1).figures().stepTimeNs(), slow.jobs().get(1).figures().stepTimeNs());
    }

    @Test
    void overlappingOversizedAndMiscountedPlacementsAreLocatedErrors() {
        InputFileException e = assertThrows(InputFileException.class, () -> shared(cluster(4) + "jobs:\n"
                + "  - name: a\n    placement: {servers: 0-1}\n" + job(2, 1)
                + "  - name: b\n    placement: {servers: 1-2}\n" + job(2, 1)
                + "  - name: c\n    placement: {servers: 3}\n" + job(2, 1)
                + "  - name: d\n    placement: {servers: 7-8}\n" + job(2, 1)));
        String m = e.getMessage();
        assertTrue(m.contains("shared.yaml:10:16: jobs[1]") && m.contains("jobs[1].placement: found server 1, which a (jobs[0]) "
                + "already takes"), m);
        assertTrue(m.contains("jobs[2].placement: found 1 servers (8 GPUs), but the job's layout tp x cp x pp x dp uses"
                + " 16 GPUs: expected 2 servers"), m);
        assertTrue(m.contains("jobs[3].placement: found server 7, but the cluster has servers 0 to 3"), m);
        InputFileException full = assertThrows(InputFileException.class, () -> shared(cluster(3) + "jobs:\n"
                + "  - name: a\n    placement: packed\n" + job(2, 1)
                + "  - name: b\n    placement: {policy: random, seed: 4}\n" + job(2, 1)));
        assertTrue(full.getMessage().contains("jobs[1].placement: the job needs 2 servers (16 GPUs), but only 1 of the "
                + "cluster's 3 are free"), full.getMessage());
        InputFileException inJob = assertThrows(InputFileException.class, () -> shared(cluster(4) + "jobs:\n"
                + "  - name: a\n    placement: packd\n" + job(2, 1).replace("tp: 8", "tp: 3")));
        assertTrue(inJob.getMessage().contains("jobs[0].placement: found 'packd'"), inJob.getMessage());
        assertTrue(inJob.getMessage().contains("jobs[0].parallelism"), inJob.getMessage());
    }

    /** GPT-3 1.3B on v5e 4x4 slices (two hosts of 8 chips each): FSDP 4 x tensor 4 per slice, data over DCN. */
    private static String tpuJob(int slices) {
        return "    model: {preset: gpt3-1.3b}\n"
                + "    parallelism:\n      mesh: {ici_fsdp: 4, ici_tensor: 4" + (slices > 1 ? ", dcn_data: " + slices : "")
                + "}\n    training: {globalBatch: " + 8 * slices + ", microBatch: 2, seqLen: 1024}\n";
    }

    @Test
    void twoJobsOnDistinctSlicesOfATpuClusterRunExactlyAsFastAsAlone() throws Exception {
        // a takes slices 1 and 3 (hosts 2-3 and 6-7), joined by DCN; b takes slice 0; slice 2 stays free
        SharedRun run = SharedRun.of(shared("cluster: {preset: tpu-v5e, topology: 4x4, slices: 4}\njobs:\n"
                + "  - name: a\n    slices: 2\n    placement: {servers: \"2-3,6-7\"}\n" + tpuJob(2)
                + "  - name: b\n    placement: first-fit\n" + tpuJob(1)), false, 2);
        assertArrayEquals(new int[] {0, 1}, run.jobs().get(1).job().servers(), "first-fit: the lowest free slice");
        for (int i = 0; i < 2; i++) {
            int slices = 2 - i;
            Scenario own = single("cluster: {preset: tpu-v5e, topology: 4x4, slices: " + slices + "}\n"
                    + tpuJob(slices).replace("\n    ", "\n").replaceFirst("^    ", ""));
            StepFigures separate = SimulatedStep.of(own, own.trainingStep(), false).figures();
            SharedRun.JobRun j = run.jobs().get(i);
            assertEquals(separate.stepTimeNs(), j.figures().stepTimeNs(), j.job().name() + " against its own scenario");
            assertEquals(separate.stepTimeNs(), j.alone().stepTimeNs());
            assertEquals(1.0, j.slowdown());
        }
        // job a's chips are those of slices 1 and 3: the device at a position of its slice 1 is at that
        // position of the shared cluster's slice 3
        int[] map = run.jobs().get(0).job().deviceMap(8);
        assertEquals(16, map[0]);
        assertEquals(48, map[16]);
    }

    @Test
    void aTpuJobTakesWholeSlicesAndOnlyATpuJobTakesSlices() {
        String cluster = "cluster: {preset: tpu-v5e, topology: 4x4, slices: 3}\njobs:\n";
        InputFileException half = assertThrows(InputFileException.class, () -> shared(cluster
                + "  - name: a\n    placement: {servers: 1-2}\n" + tpuJob(1)));
        assertTrue(half.getMessage().contains("jobs[0].placement: found servers 1-2, but a job on TPU slices takes whole "
                + "slices of 2 hosts each (slice 0 is servers 0-1)"), half.getMessage());
        InputFileException full = assertThrows(InputFileException.class, () -> shared(cluster
                + "  - name: a\n    slices: 2\n    placement: packed\n" + tpuJob(2)
                + "  - name: b\n    slices: 2\n    placement: {policy: random, seed: 3}\n" + tpuJob(2)));
        assertTrue(full.getMessage().contains("jobs[1].placement: the job takes 2 slice(s), but only 1 of the cluster's "
                + "3 slices are free"), full.getMessage());
        InputFileException gpu = assertThrows(InputFileException.class, () -> shared(cluster(2) + "jobs:\n"
                + "  - name: a\n    slices: 1\n    placement: packed\n" + job(2, 1)));
        assertTrue(gpu.getMessage().contains("jobs[0].slices: a job takes slices on a shared cluster of TPU slices"),
                gpu.getMessage());
    }

    @Test
    void automaticStepCountsLetEveryJobCompleteItsStepsWhileTheOthersStillRun() throws Exception {
        // a's ring crosses the 4:1 spines (a slower step than b's, under its own leaves); a wants 2 steps, b 1
        String jobs = "jobs:\n  - name: a\n    placement: {servers: \"0,32\"}\n" + job(2, 2)
                + "  - name: b\n    placement: {servers: 40-41}\n" + job(2, 1);
        String cluster = "cluster: {preset: dgx-h100, nodes: 64, fabric: rail-optimized, oversubscription: 4}\n";
        SharedRun fixed = SharedRun.of(shared(cluster + jobs), false, 2);
        assertTrue(!fixed.jobs().get(0).overlapped(), "a's last step ends after b has finished");
        SharedRun auto = SharedRun.of(shared(cluster + "simulation: {steps: auto}\n" + jobs), false, 2);
        for (SharedRun.JobRun j : auto.jobs()) {
            assertTrue(j.overlapped(), j.job().name() + " measured while every job ran");
        }
        assertTrue(auto.jobs().get(0).measuredStep() >= 1, "a completes its 2 steps together with b");
        assertTrue(auto.jobs().get(1).job().scenario().steps() > 2, "b runs more steps to cover a's two: "
                + auto.jobs().get(1).job().scenario().steps());
        InputFileException bad = assertThrows(InputFileException.class, () -> shared(cluster
                + "simulation: {steps: 3}\n" + jobs));
        assertTrue(bad.getMessage().contains("simulation.steps"), bad.getMessage());
    }
}
