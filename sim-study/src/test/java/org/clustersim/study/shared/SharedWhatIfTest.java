package org.clustersim.study.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.input.InputException;
import org.clustersim.core.input.InputFileException;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.study.scenario.SharedScenarioReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shared cluster with and without extra faults: {@link SharedWhatIf}. */
class SharedWhatIfTest {
    @TempDir
    Path dir;

    /**
     * Two SUs at 4:1 above the leaves: job a on server 0 of SU 0 and server 32 of SU 1 (its DP
     * ring crosses the spines), job b on servers 40-41 of SU 1 (its ring stays under SU 1's leaves).
     */
    private SharedScenario twoJobs() throws Exception {
        String job = "    model: {preset: gpt3-1.3b}\n    parallelism: {tp: 8, dp: 2}\n"
                + "    training: {globalBatch: 8, microBatch: 1, seqLen: 2048}\n";
        Path f = dir.resolve("shared.yaml");
        Files.writeString(f, "cluster: {preset: dgx-h100, nodes: 64, fabric: rail-optimized, oversubscription: 4}\n"
                + "jobs:\n  - name: a\n    placement: {servers: \"0,32\"}\n" + job
                + "  - name: b\n    placement: {servers: 40-41}\n" + job + "    simulation: {steps: 3}\n");
        return new SharedScenarioReader().read(f);
    }

    @Test
    void aSlowCableOnlyJobACrossesSlowsJobAAndLeavesJobBExactlyAsItWas() throws Exception {
        SharedScenario shared = twoJobs();
        // node 0's NIC 0 cable: job a's DP traffic leaves server 0 over it, job b is on other servers
        Fault slowCable = Fault.degraded(Fault.Target.LINK, "node0.nic0<->su0.leaf0", 0.1, "--degrade");
        SharedWhatIf w = SharedWhatIf.of(shared, List.of(slowCable), 2);
        SharedWhatIf.JobChange a = w.changes().get(0);
        SharedWhatIf.JobChange b = w.changes().get(1);
        assertEquals("a", a.job());
        assertTrue(a.after() > a.before(), "job a waits on its slowed cable: " + a.before() + " -> " + a.after());
        assertEquals(b.before(), b.after(), "job b crosses no link of that cable");
        assertEquals(0, b.deltaNs());
        assertEquals(1.0, b.slowdown());
        assertEquals(SharedRun.of(shared, false, 1).jobs().get(0).figures().stepTimeNs(), a.before(),
                "the baseline is the file as it is");
        assertEquals(w.variant().jobs().get(1).figures().tokensPerSecond() + w.variant().jobs().get(0).figures()
                .tokensPerSecond(), w.variant().tokensPerSecond(), 1e-9 * w.variant().tokensPerSecond());
        assertTrue(w.variant().tokensPerSecond() < w.baseline().tokensPerSecond());
    }

    @Test
    void faultsThatNameNothingOrChangeNothingAreRefusedBeforeOrInsteadOfTheVariant() throws Exception {
        SharedScenario shared = twoJobs();
        InputFileException unknown = assertThrows(InputFileException.class, () -> SharedWhatIf.of(shared,
                List.of(Fault.down(Fault.Target.LINK, "node0.nic0<->su9.leaf0", "--fail node0.nic0<->su9.leaf0")), 1));
        assertTrue(unknown.getMessage().contains("--fail node0.nic0<->su9.leaf0"), unknown.getMessage());
        InputException free = assertThrows(InputException.class, () -> SharedWhatIf.of(shared,
                List.of(Fault.slow("node5.gpu1", 0.5, "--slow node5.gpu1=0.5")), 1));
        assertTrue(free.getMessage().contains("--slow node5.gpu1=0.5: node5.gpu1 is on a server no job runs on"),
                free.getMessage());
    }
}
