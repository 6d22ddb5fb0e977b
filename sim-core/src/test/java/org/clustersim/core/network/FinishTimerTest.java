package org.clustersim.core.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.kernel.HeapKernel;
import org.junit.jupiter.api.Test;

/**
 * The finish timer: one kernel event for the earliest finish, the flows due then taken in id
 * order, and a timer made stale by an earlier finish ignored when it fires.
 */
class FinishTimerTest {
    private final HeapKernel kernel = new HeapKernel();
    /** Each time the owner is told: "at: ids due", as the flow model takes them. */
    private final List<String> told = new ArrayList<>();
    private FinishTimer timer;

    private FinishTimer timer() {
        timer = new FinishTimer(kernel, now -> {
            StringBuilder s = new StringBuilder(now + ":");
            while (timer.firstTime() <= now) {
                for (int i = 0, n = timer.takeFirst(); i < n; i++) {
                    s.append(' ').append(timer.due(i).id);
                }
            }
            told.add(s.toString());
            timer.arm();
        });
        return timer;
    }

    private static ActiveFlow flow(long id, long finishAt) {
        ActiveFlow a = new ActiveFlow(id, null, "test", null, 1, 0);
        a.finishAt = finishAt;
        return a;
    }

    @Test
    void tellsTheOwnerOncePerFinishTimeWithTheFlowsDueInIdOrder() {
        FinishTimer t = timer();
        t.update(flow(7, 30));
        t.update(flow(3, 10));
        t.update(flow(5, 10));
        t.update(flow(1, 20));
        t.update(flow(2, 10));
        t.arm();
        kernel.run();
        assertEquals(List.of("10: 2 3 5", "20: 1", "30: 7"), told);
    }

    @Test
    void aTimerMadeStaleByAnEarlierFinishIsIgnored() {
        FinishTimer t = timer();
        ActiveFlow a = flow(1, 100);
        t.update(a);
        t.arm();
        a.finishAt = 50;
        t.update(a);
        t.arm();
        kernel.run();
        // the event at 100 still fires, and tells nobody
        assertEquals(List.of("50: 1"), told);
        assertEquals(100, kernel.now());
    }

    @Test
    void aFlowMovedLaterIsTakenAtItsNewTime() {
        FinishTimer t = timer();
        ActiveFlow a = flow(1, 50);
        t.update(a);
        t.arm();
        a.finishAt = 80;
        t.update(a);
        kernel.run();
        assertEquals(List.of("50:", "80: 1"), told);
    }
}
