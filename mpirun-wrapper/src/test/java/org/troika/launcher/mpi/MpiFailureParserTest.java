package org.troika.launcher.mpi;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.UserText;

class MpiFailureParserTest {
    private static final HostPlan PLAN =
            HostPlan.assign("-H", List.of(new HostSlots("node1", 1), new HostSlots("node2", 2)), 3);

    private static Optional<FailedRank> parse(HostPlan plan, String text) {
        MpiFailureParser p = new MpiFailureParser(plan);
        text.lines().forEach(l -> p.accept(l + "\n"));
        return p.first();
    }

    /** Open MPI 4.1.4's stderr when rank 1 calls exit(3) after MPI_Init (recorded on Debian 12). */
    private static final String NON_ZERO_EXIT = """
            --------------------------------------------------------------------------
            Primary job  terminated normally, but 1 process returned
            a non-zero exit code. Per user-direction, the job has been aborted.
            --------------------------------------------------------------------------
            --------------------------------------------------------------------------
            mpirun detected that one or more processes exited with non-zero status, thus causing
            the job to be terminated. The first process to do so was:

              Process name: [[29432,1],1]
              Exit code:    3
            --------------------------------------------------------------------------
            """;

    /** Open MPI 4.1.4's stderr when rank 1 is killed by SIGKILL. */
    private static final String SIGNALED = """
            --------------------------------------------------------------------------
            Primary job  terminated normally, but 1 process returned
            a non-zero exit code. Per user-direction, the job has been aborted.
            --------------------------------------------------------------------------
            --------------------------------------------------------------------------
            mpirun noticed that process rank 2 with PID 0 on node vm exited on signal 9 (Killed).
            --------------------------------------------------------------------------
            """;

    @Test
    void namesRankExitCodeAndPlannedHostOfANonZeroExit() {
        assertEquals(Optional.of(new FailedRank(1, "node2", 3)), parse(PLAN, NON_ZERO_EXIT));
        assertEquals(Optional.of(new FailedRank(1, null, 3)), parse(null, NON_ZERO_EXIT));
    }

    @Test
    void deathBySignalUsesTheReportedNodeAnd128PlusSignal() {
        assertEquals(Optional.of(new FailedRank(2, "vm", 137)), parse(PLAN, SIGNALED));
    }

    /** Open MPI 4.1.4's stderr when rank 0 calls MPI_Abort(MPI_COMM_WORLD, 1) (recorded here, with --tag-output). */
    private static final String ABORTED = """
            --------------------------------------------------------------------------
            MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD
            with errorcode 1.

            NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.
            You may or may not see output from other processes, depending on
            exactly when Open MPI kills them.
            --------------------------------------------------------------------------
            """;

    @Test
    void aRankThatCalledMpiAbortIsTheFirstFailure() {
        // an elastic rank 0 that cannot reach the driver aborts: the driver must blacklist its host, not relaunch it
        assertEquals(Optional.of(new FailedRank(0, "node1", 1)), parse(PLAN, ABORTED));
    }

    @Test
    void aProgramOrClassAHostLacksEarnsTheShareNothingReminder() {
        MpiFailureParser p = new MpiFailureParser(PLAN);
        byte[] jvm = "Error: Could not find or load main class org.example.Train\n".getBytes(
                java.nio.charset.StandardCharsets.UTF_8);
        p.acceptRankLineStart(jvm, 0, jvm.length); // rank 1's line, after its tag
        p.accept(NON_ZERO_EXIT);
        assertEquals(Optional.of(MpiFailureParser.MISSING_PROGRAM_HINT), p.missingProgramHint());
        MpiFailureParser q = new MpiFailureParser(PLAN);
        q.accept("mpirun was unable to launch the specified application as it could not access\n");
        assertTrue(q.missingProgramHint().isPresent());
        assertTrue(parseHint(NON_ZERO_EXIT).isEmpty());
    }

    private static Optional<String> parseHint(String text) {
        MpiFailureParser p = new MpiFailureParser(PLAN);
        text.lines().forEach(l -> p.accept(l + "\n"));
        return p.missingProgramHint();
    }

    @Test
    void firstReportWins() {
        assertEquals(Optional.of(new FailedRank(2, "vm", 137)), parse(PLAN, SIGNALED + NON_ZERO_EXIT));
    }

    @Test
    void openMpi5WordingAndUnrelatedOutput() {
        assertAll(
                () -> assertEquals(Optional.of(new FailedRank(0, "node1", 5)),
                        parse(PLAN, "  Process name: [prterun-vm-1234@1,0]\n  Exit code:    5\n")),
                () -> assertEquals(Optional.of(new FailedRank(1, "n7", 139)), parse(PLAN,
                        "prterun noticed that process rank 1 with PID 77 on node n7 exited on signal 11 (Segmentation fault).")),
                () -> assertTrue(parse(PLAN, "[1,0]<stdout>:Exit code: 4\nPrimary job  terminated normally, but 1 process returned\n")
                        .isEmpty()),
                () -> assertTrue(parse(PLAN, "  Exit code:    3\n").isEmpty(), "an exit code without a process name"));
    }

    /**
     * srun (Slurm 22.05.8) inside a 3-node allocation when task 4 exits 7 under --kill-on-bad-exit; the other tasks'
     * "Terminated" lines follow. Recorded on the test cluster.
     */
    private static final String SRUN_EXIT = """
            srun: error: n3: task 4: Exited with exit code 7
            srun: launch/slurm: _step_signal: Terminating StepId=5.0
            0: slurmstepd-n1: error: *** STEP 5.0 ON n1 CANCELLED AT 2026-11-23T06:15:45 ***
            srun: error: n3: task 5: Terminated
            srun: error: n2: tasks 2-3: Terminated
            srun: Force Terminated StepId=5.0
            """;

    @Test
    void srunTaskLines() {
        HostPlan six = HostPlan.assign("slurm", List.of(new HostSlots("n1", 2), new HostSlots("n2", 2),
                new HostSlots("n3", 2)), 6);
        assertAll(
                () -> assertEquals(Optional.of(new FailedRank(4, "n3", 7)), parse(six, SRUN_EXIT)),
                () -> assertEquals(Optional.of(new FailedRank(0, "n1", 139)),
                        parse(six, "srun: error: n1: task 0: Segmentation fault (core dumped)\n")),
                () -> assertEquals(Optional.of(new FailedRank(5, "n3", 137)),
                        parse(six, "srun: error: n3: task 5: Killed\n")),
                () -> assertTrue(parse(six, "srun: error: n2: tasks 2-3: Terminated\n").isEmpty(),
                        "a range of tasks is the collateral of another failure"),
                () -> assertTrue(parse(six, "srun: error: n2: task 2: Something unknown\n").isEmpty()),
                () -> assertTrue(parse(six, "3: srun: error: n2: task 2: Exited with exit code 1\n").isEmpty(),
                        "a rank's own (labelled) output is not srun's report"));
    }

    @Test
    void openMpi5WrapsTheSignalReportOverTwoLines() {
        // Open MPI 5.0.7 in the trixie root, rank 2 of 3 SIGKILLed (RunFailingRankTest)
        String wrapped = "--------------------------------------------------------------------------\n"
                + "prterun noticed that process rank 2 with PID 5856 on node vm exited on\n"
                + "signal 9 (Killed).\n"
                + "--------------------------------------------------------------------------\n";
        assertEquals(Optional.of(new FailedRank(2, "vm", 137)), parse(PLAN, wrapped));
    }

    @Test
    void summaryLine() {
        assertEquals("troika: rank 1 on host node2 failed first with exit code 3", new FailedRank(1, "node2", 3).summary());
        assertEquals("troika: rank 4 on host (unknown) failed first with exit code 137",
                new FailedRank(4, null, 137).summary());
        // a host name from the launcher's report is text like any warning: escaped, one line, cut
        String forged = new FailedRank(2, "evil\ntroika: rank 0 on host good failed first with exit code 9", 3).summary();
        assertEquals(1, forged.lines().count(), forged);
        assertTrue(forged.startsWith("troika: rank 2 on host evil") && forged.endsWith("with exit code 3"), forged);
        assertTrue(new FailedRank(2, "h".repeat(5000), 3).summary().length() < UserText.MAX_LINE + 40);
    }
}
