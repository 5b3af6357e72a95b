// Finding a run's process again (tuner/run_process.h): this process is
// alive, a process that has ended (reaped or still a zombie) is gone, a
// recycled pid with another start time is gone, another host cannot be
// checked, and a record without a token is unknown.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tuner/run_process.h"

using unity::tuner::liveness;
using unity::tuner::ProcessLiveness;
using unity::tuner::RunProcess;

TEST(RunProcess, ThisProcessIsAliveAndItsTokenIsStable) {
  RunProcess me = unity::tuner::thisProcess();
  EXPECT_EQ(me.pid, int64_t(getpid()));
  EXPECT_FALSE(me.host.empty());
  ASSERT_FALSE(me.startToken.empty()) << "procfs is needed on the test machine";
  EXPECT_EQ(unity::tuner::processStartToken(me.pid), me.startToken);
  EXPECT_EQ(liveness(me), ProcessLiveness::Alive);
}

TEST(RunProcess, AnEndedProcessIsGoneWhetherReapedOrNot) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) { // waits until the parent has read its identity
    char c;
    close(fds[1]);
    (void)!read(fds[0], &c, 1);
    _exit(0);
  }
  close(fds[0]);
  auto token = unity::tuner::processStartToken(child);
  ASSERT_TRUE(token);
  RunProcess p{child, unity::tuner::hostName(), *token};
  EXPECT_EQ(liveness(p), ProcessLiveness::Alive);
  // Same pid, another start: what a recycled pid looks like.
  RunProcess recycled = p;
  recycled.startToken += "0";
  EXPECT_EQ(liveness(recycled), ProcessLiveness::Gone);

  close(fds[1]); // the child exits; unreaped, it is a zombie
  for (int i = 0; i < 500 && unity::tuner::processStartToken(child); ++i)
    usleep(10000);
  EXPECT_FALSE(unity::tuner::processStartToken(child)) << "a zombie does not run";
  EXPECT_EQ(liveness(p), ProcessLiveness::Gone);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(liveness(p), ProcessLiveness::Gone);
}

TEST(RunProcess, AnotherHostOrNoTokenCannotBeChecked) {
  RunProcess me = unity::tuner::thisProcess();
  RunProcess elsewhere = me;
  elsewhere.host += "-other";
  EXPECT_EQ(liveness(elsewhere), ProcessLiveness::OtherHost);
  RunProcess noToken = me;
  noToken.startToken.clear();
  EXPECT_EQ(liveness(noToken), ProcessLiveness::Unknown);
  EXPECT_FALSE(unity::tuner::processStartToken(0));
  EXPECT_FALSE(unity::tuner::processStartToken(-5));
}
