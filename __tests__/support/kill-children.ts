/**
 * jest setup (setupFilesAfterEnv): after each test, kill the processes it started and left
 * running (a timed-out test is abandoned, not stopped); after each file, whatever its hooks
 * started. See child-processes.ts.
 */
import { killAllChildren, killChildrenOfTest } from './child-processes';

afterEach(() => {
  const killed = killChildrenOfTest(expect.getState().currentTestName);
  if (killed > 0) process.stderr.write(`kill-children: killed ${killed} process(es) left running by "${expect.getState().currentTestName}"\n`);
});

afterAll(() => {
  killAllChildren();
});
