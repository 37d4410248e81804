package org.troika.common.exec;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Test helper run in a separate JVM by {@link ParentDeathTest}: supervises a small process tree, prints
 * {@code started} once the tree is up, then waits to be killed.
 */
public final class GuardedChildMain {
    private GuardedChildMain() {}

    public static void main(String[] args) throws Exception {
        String marker = args[0];
        CountDownLatch up = new CountDownLatch(1);
        LineSink out = s -> {
            if (s.startsWith("up")) {
                up.countDown();
            }
        };
        // args[1] "daemon": one child also leaves the session (setsid -f), as a daemonizing rank does; "detached":
        // the plan only starts such a child, with its output away from the plan's pipes, and exits once the child
        // has its own session, as `prted --daemonize` does (the JDK then closes the guard's pipe, and the guard waits
        // for the child)
        String mode = args.length > 1 ? args[1] : "group";
        String script = mode.equals("detached") ? ProcessSupervisorTest.detached("sleep 301") + "echo up"
                : (mode.equals("daemon") ? "setsid -f sleep 301; " : "") + "sleep 300 & sleep 300 & echo up; wait";
        ProcessSupervisor.start(new LaunchPlan(List.of("sh", "-c", script),
                        Map.of("PATH", "/usr/bin:/bin", ProcessSupervisorTest.MARKER, marker)),
                ProcessSupervisor.Options.of(out, LineSink.discard()).withGuardGrace(java.time.Duration.ofSeconds(1)));
        up.await();
        System.out.println("started");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
