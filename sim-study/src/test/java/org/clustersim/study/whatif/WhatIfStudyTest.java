package org.clustersim.study.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.clustersim.study.engine.Progress;
import org.clustersim.study.scenario.Fault;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Faults against a two-SU rail-optimised fabric where each TP rank's data-parallel ring rides its own rail. */
class WhatIfStudyTest {
    static WhatIfStudy study;
    static Outcome baseline;

    @BeforeAll
    static void setUp() {
        study = new WhatIfStudy(new ScenarioReader().read(Path.of("src", "test", "resources", "whatif-2su.yaml")));
        baseline = study.run("baseline", "", List.of(), null);
    }

    /** The timeline of a run with extra faults. */
    static Timeline timeline(List<Fault> faults) {
        Timeline[] out = new Timeline[1];
        study.run("t", "", faults, r -> out[0] = r.result().timeline());
        return out[0];
    }

    /** Whether any flow of a communication task routes (statically) over one of {@code links}. */
    static boolean crosses(Topology t, Work.Communication c, Set<Integer> links) {
        for (Phase ph : c.phases()) {
            for (Flow f : ph.flows()) {
                if (f.srcDevice() != f.dstDevice()) {
                    for (Link l : t.route(f.srcDevice(), f.dstDevice(), f.channel()).links()) {
                        if (links.contains(l.id())) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    @Test
    void failingAnIdleLinkChangesNothing() {
        Topology t = study.topology();
        Link idle = null;
        for (Link l : t.links()) {
            if (Cable.classOf(l).equals("leaf-spine") && baseline.linkBytes()[l.id()] == 0) {
                idle = l;
                break;
            }
        }
        assertTrue(idle != null, "some uplink carries nothing");
        Outcome o = study.run("idle", "", List.of(Fault.down(Fault.Target.LINK, idle.name(), "test")), null);
        assertEquals(baseline.stepTimeNs(), o.stepTimeNs(), "bit-identical step time");
        assertEquals(baseline.exposedByKindNs(), o.exposedByKindNs());
    }

    @Test
    void aDegradedUplinkSlowsExactlyTheCollectivesWhoseFlowsItCarries() {
        Topology t = study.topology();
        // the busiest leaf-to-spine link of the baseline
        Link busiest = null;
        for (Link l : t.links()) {
            if (Cable.classOf(l).equals("leaf-spine") && l.src().name().contains("leaf")
                    && (busiest == null || baseline.linkBytes()[l.id()] > baseline.linkBytes()[busiest.id()])) {
                busiest = l;
            }
        }
        assertTrue(baseline.linkBytes()[busiest.id()] > 0);
        Timeline healthy = timeline(List.of());
        Timeline degraded = timeline(List.of(Fault.degraded(Fault.Target.LINK, busiest.name(), 0.25, "test")));
        assertTrue(degraded.makespan() > healthy.makespan(), "the step waits for the slowed ring");
        TaskGraph g = healthy.graph();
        int slowed = 0;
        int unchanged = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (!(g.task(i).work() instanceof Work.Communication c)) {
                continue;
            }
            long before = healthy.end(i) - healthy.start(i);
            long after = degraded.end(i) - degraded.start(i);
            if (crosses(t, c, Set.of(busiest.id()))) {
                assertTrue(after > before, g.task(i).name() + " crosses the link: " + before + " -> " + after);
                slowed++;
            } else {
                assertEquals(before, after, g.task(i).name() + " does not cross the link");
                unchanged++;
            }
        }
        assertTrue(slowed > 0 && unchanged > slowed, slowed + " slowed, " + unchanged + " unchanged");
    }

    @Test
    void degradingOneRailsLeafUplinksHurtsThatRailsDataParallelRingOnly() {
        Topology t = study.topology();
        List<Fault> uplinks = new ArrayList<>();
        for (Link l : t.links()) {
            if (l.src().name().equals("su0.leaf3") && Cable.classOf(l).equals("leaf-spine")) {
                uplinks.add(Fault.degraded(Fault.Target.LINK, l.name(), 0.25, "test"));
            }
        }
        assertFalse(uplinks.isEmpty());
        Timeline healthy = timeline(List.of());
        Timeline degraded = timeline(uplinks);
        TaskGraph g = healthy.graph();
        Set<Integer> rail3 = new HashSet<>();
        int others = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            if (!g.task(i).category().equals("dp-comm")) {
                continue;
            }
            // a data-parallel task's GPUs all sit at one TP rank, which is the rail they use
            int device = g.streams().get(g.task(i).stream(0)).device();
            long before = healthy.end(i) - healthy.start(i);
            long after = degraded.end(i) - degraded.start(i);
            if (device % 8 == 3) {
                assertTrue(after > 1.2 * before, g.task(i).name() + " on rail 3: " + before + " -> " + after);
                rail3.add(i);
            } else {
                assertEquals(before, after, g.task(i).name() + " on rail " + device % 8);
                others++;
            }
        }
        assertTrue(!rail3.isEmpty() && others == 7 * rail3.size(), rail3.size() + " on rail 3, " + others + " elsewhere");
    }

    @Test
    void theSweepRankingIsDeterministicAndItsTopEntryReproduces() {
        List<WhatIfStudy.Variant> variants = new ArrayList<>();
        for (Cable c : Cable.select(study.topology(), "leaf-spine", 6, 7)) {
            variants.add(new WhatIfStudy.Variant(c.name(), c.clazz(), List.of(Fault.down(Fault.Target.LINK, c.name(),
                    "sweep"))));
        }
        assertEquals(6, variants.size());
        assertEquals(variants.stream().map(WhatIfStudy.Variant::label).toList(),
                Cable.select(study.topology(), "leaf-spine", 6, 7).stream().map(Cable::name).toList(),
                "the same seed samples the same cables");
        List<Outcome> parallel = study.runAll(variants, 2, Progress.silent());
        List<Outcome> serial = study.runAll(variants, 1, Progress.silent());
        for (int i = 0; i < variants.size(); i++) {
            assertEquals(serial.get(i).stepTimeNs(), parallel.get(i).stepTimeNs(), variants.get(i).label());
        }
        Outcome worst = parallel.stream().max(java.util.Comparator.comparingDouble(o -> o.slowdown(baseline)))
                .orElseThrow();
        Outcome again = study.run(worst.label(), "", List.of(Fault.down(Fault.Target.LINK, worst.label(), "again")),
                null);
        assertEquals(worst.slowdown(baseline), again.slowdown(baseline), 0.0);
    }

    @Test
    void aCutIsReportedNotThrown() {
        Outcome cut = study.run("nic cable", "", List.of(Fault.down(Fault.Target.NIC, "node5.nic2", "test")), null);
        assertTrue(cut.failed());
        assertTrue(cut.failure().contains("cannot be delivered") && cut.failure().contains("node5.gpu2"),
                cut.failure());
        assertEquals(Double.POSITIVE_INFINITY, cut.slowdown(baseline));
    }

    @Test
    void aSlowGpuSlowsTheStep() {
        Outcome slow = study.run("slow", "", List.of(Fault.slow("node0.gpu0", 0.5, "test")), null);
        assertTrue(slow.stepTimeNs() > baseline.stepTimeNs(), slow.stepTimeNs() + " vs " + baseline.stepTimeNs());
        Simulation.Result[] r = new Simulation.Result[1];
        study.run("slow", "", List.of(Fault.slow("node0.gpu0", 0.5, "test")), x -> r[0] = x.result());
        // its TP group computes in lockstep, so the other seven GPUs of the server are held back too
        Timeline healthy = timeline(List.of());
        assertTrue(r[0].timeline().computeBusy(7) > 1.5 * healthy.computeBusy(7),
                healthy.computeBusy(7) + " -> " + r[0].timeline().computeBusy(7));
        assertEquals(healthy.computeBusy(15), r[0].timeline().computeBusy(15), "another server keeps its pace");
    }
}
