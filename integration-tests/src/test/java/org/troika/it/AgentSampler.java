package org.troika.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Samples the process table for the {@code troika-rsh} launch agents of one cluster (not task services): the agents
 * in this machine's own network namespace are the launch node's (mpirun started them), the others ran on the
 * namespace hosts (a tree-spawning daemon started them). An agent's first argument is the host it starts a daemon on,
 * so only agents for {@code hosts} are counted, whatever else runs on the machine. Read by {@link TreeLaunchTest} and
 * {@link TreeLaunchBench}.
 */
final class AgentSampler implements AutoCloseable {
    private static final String AGENT_MAIN = "org.troika.rsh.agent.RshMain";
    private static final String NATIVE_AGENT = "troika-rsh-agent";

    private final Set<String> hosts;
    private final String ownNet;
    private final Thread thread;
    private volatile boolean done;
    private final Set<Long> launchNodeSeen = new HashSet<>();
    private final Set<Long> hostSeen = new HashSet<>();
    private int maxLaunchNode;
    private long maxLaunchNodeRssKb;
    private int launchNodeNow;

    /** What was seen so far. */
    record Seen(int maxLaunchNodeAlive, long maxLaunchNodeRssKb, int launchNodeAgents, int hostAgents,
            int launchNodeAliveNow) {
        @Override
        public String toString() {
            return "launch-node agents: at most " + maxLaunchNodeAlive + " alive at once (" + maxLaunchNodeRssKb / 1024
                    + " MB RSS), " + launchNodeAgents + " in all; agents started on the hosts: " + hostAgents;
        }
    }

    AgentSampler(List<String> hosts, long periodMillis) throws IOException {
        this.hosts = Set.copyOf(hosts);
        this.ownNet = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        thread = new Thread(() -> {
            while (!done) {
                sample();
                try {
                    Thread.sleep(periodMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "agent-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        int launchNode = 0;
        long rss = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String[] argv = new String(Files.readAllBytes(p.resolve("cmdline"))).split("\0");
                    // the JVM agent's main class is followed by the host; the agent without a JVM is argv[0]
                    int main = argv.length > 0 && argv[0].endsWith("/" + NATIVE_AGENT) ? 0
                            : List.of(argv).indexOf(AGENT_MAIN);
                    if (main < 0 || main + 1 >= argv.length || !hosts.contains(argv[main + 1])) {
                        continue; // not an agent (a task service's first argument is "task-service"), or not ours
                    }
                    long pid = Long.parseLong(name);
                    String net = Files.readSymbolicLink(p.resolve("ns/net")).toString();
                    if (net.equals(ownNet)) {
                        launchNode++;
                        rss += rssKb(p);
                        synchronized (this) {
                            launchNodeSeen.add(pid);
                        }
                    } else {
                        synchronized (this) {
                            hostSeen.add(pid);
                        }
                    }
                } catch (IOException | RuntimeException gone) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            return;
        }
        synchronized (this) {
            maxLaunchNode = Math.max(maxLaunchNode, launchNode);
            maxLaunchNodeRssKb = Math.max(maxLaunchNodeRssKb, rss);
            launchNodeNow = launchNode;
        }
    }

    private static long rssKb(Path proc) throws IOException {
        for (String line : Files.readAllLines(proc.resolve("status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return 0;
    }

    synchronized Seen seen() {
        return new Seen(maxLaunchNode, maxLaunchNodeRssKb, launchNodeSeen.size(), hostSeen.size(), launchNodeNow);
    }

    @Override
    public void close() throws InterruptedException {
        done = true;
        thread.interrupt();
        thread.join(5_000);
    }
}
