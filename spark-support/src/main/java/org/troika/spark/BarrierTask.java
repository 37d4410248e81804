package org.troika.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import org.troika.common.TroikaEnv;
import org.troika.common.exec.NativeText;
import org.troika.rsh.agent.AgentKey;
import org.troika.rsh.task.TaskService;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.SparkMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;

/**
 * The body of each barrier task: register with the driver's {@link JobService}, run the task service of its host when
 * told to (the lowest-index task of each host hash; none when mpirun starts the ranks on the driver's machine itself),
 * then wait for the job's end. Returns the task index, or fails
 * with the driver's message when the MPI job failed.
 *
 * <p>Cancellation: a watcher polls {@link BarrierTaskContext#isInterrupted()} (Spark kills tasks of a cancelled or
 * failed job, with or without thread interrupts) and then closes the task service, which stops orted and the ranks it
 * started (TERM, grace, KILL); Spark itself never stops a task's child processes.
 *
 * <p>The job secret reaches the task inside this serialized object, i.e. through Spark's own task channel (protect it
 * with {@code spark.authenticate} and {@code spark.network.crypto.enabled} on shared clusters).
 */
final class BarrierTask implements BarrierStage.PartitionFn<Integer, Integer> {
    private static final long serialVersionUID = 1L;
    static final Duration HEARTBEAT = Duration.ofSeconds(1);
    static final Duration LIVENESS = Duration.ofSeconds(30);

    private final String jobService;
    private final String secret;
    private final boolean hostPerExecutor;
    private final String agentLabel;

    /**
     * @param agentLabel the label of this job's launch agent key ({@link AgentKey}; not a secret): the task service
     *     hands orted and tree-spawned agents that key, never the job secret
     */
    BarrierTask(Endpoint jobService, Secret secret, boolean hostPerExecutor, String agentLabel) {
        this.jobService = jobService.toString();
        this.secret = secret.encode();
        this.hostPerExecutor = hostPerExecutor;
        this.agentLabel = AgentKey.checkLabel(agentLabel);
    }

    @Override
    public Iterator<Integer> apply(Iterator<Integer> in) throws Exception {
        BarrierTaskContext ctx = BarrierTaskContext.get();
        int index = ctx.partitionId();
        Secret key = Secret.decode(secret);
        String executor = ctx.getTaskInfos()[index].address();
        Service service = new Service();
        // built before connecting: the service closes a connection whose first frame is not in within its first-frame deadline
        SparkMessage.Task hello = new SparkMessage.Task(index, hostPerExecutor
                ? HostHash.local("executor " + org.apache.spark.SparkEnv.get().executorId()) : HostHash.local(), executor);
        try (WireChannel<SparkMessage> c = WireChannel.connectAny(List.of(Endpoint.parse(jobService, "job service")),
                Protocol.SPARK, key, (int) LIVENESS.toMillis())) {
            c.send(hello);
            c.setReadTimeoutMillis(0);
            Thread watcher = new Thread(() -> watch(ctx, c, service), "troika-spark-task-" + index);
            watcher.setDaemon(true);
            watcher.start();
            try {
                SparkMessage m = c.receive();
                if (m instanceof SparkMessage.Failure f) {
                    throw new TroikaSparkException(f.message());
                }
                if (!(m instanceof SparkMessage.Assign a)) {
                    throw new TroikaSparkException("unexpected " + m.getClass().getSimpleName() + " from the driver");
                }
                if (!a.serviceHost().isEmpty()) {
                    service.start(new TaskService.Config(a.serviceHost(), a.driver(), key, HEARTBEAT, LIVENESS,
                            NativeText.environment(), Path.of(System.getProperty("java.io.tmpdir")),
                            AgentKey.derive(key, agentLabel)));
                }
                SparkMessage end = c.receive();
                if (end instanceof SparkMessage.Failure f) {
                    throw new TroikaSparkException(f.message());
                }
                return List.of(index).iterator();
            } catch (IOException e) {
                if (ctx.isInterrupted()) {
                    throw new TroikaSparkException("task " + index + " was killed: " + ctx.getKillReason(), e);
                }
                throw new TroikaSparkException("task " + index + " lost the driver's job service: " + e.getMessage(), e);
            } finally {
                service.stop();
            }
        }
    }

    /** Closes the connection and the task service as soon as Spark kills the task; ends with the service. */
    private static void watch(BarrierTaskContext ctx, WireChannel<SparkMessage> c, Service service) {
        try {
            while (!ctx.isInterrupted()) {
                if (service.stopped()) {
                    return; // the task ended normally
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            return;
        }
        try {
            c.close(); // first, so the driver sees the task gone before mpirun sees its daemon die
        } catch (IOException ignored) {
            // closing
        }
        service.stop();
    }

    /**
     * The task service of this task, if any, stopped at most once. Stopping must not run with the thread's interrupt
     * flag set (Spark interrupts killed tasks), or the supervisor skips its SIGKILL step. Open MPI puts each rank in its
     * own process group, so a rank whose orted died first would survive a group kill. The job's processes below this
     * JVM are therefore noted before the service stops, and any of them still alive afterwards are killed by pid.
     */
    private static final class Service {
        private TaskService running;
        private String driverAddr;
        private boolean stopped;

        synchronized void start(TaskService.Config config) throws IOException {
            if (!stopped) {
                driverAddr = Endpoint.formatList(config.driver());
                running = new TaskService(config).start();
            }
        }

        synchronized boolean stopped() {
            return stopped;
        }

        synchronized void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            if (running == null) {
                return;
            }
            List<ProcessHandle> job = jobProcesses(TroikaEnv.DRIVER_ADDR + "=" + driverAddr);
            boolean interrupted = Thread.interrupted();
            try {
                running.close();
            } finally {
                job.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Processes below this JVM whose environment holds {@code entry} ({@code TROIKA_DRIVER_ADDR=...}, unique per job):
     * the task service's orted and the ranks, which inherit it.
     */
    static List<ProcessHandle> jobProcesses(String entry) {
        byte[] wanted = (entry + "\0").getBytes(StandardCharsets.UTF_8);
        return ProcessHandle.current().descendants().filter(p -> environContains(p.pid(), wanted)).toList();
    }

    private static boolean environContains(long pid, byte[] wanted) {
        byte[] env;
        try {
            env = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
        } catch (IOException | RuntimeException e) {
            return false; // gone, or not ours to read
        }
        outer:
        for (int i = 0; i + wanted.length <= env.length; i++) {
            if (i > 0 && env[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < wanted.length; j++) {
                if (env[i + j] != wanted[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
