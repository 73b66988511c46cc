"""Tutorial 8: checkpoints -- a long run that is stopped or killed resumes with the same clusters.

Needs: netmcl alone (``python -m pip install .``).  Run it as is:
``python tutorials/08_checkpoint_resume.py``.  It starts the
``netmcl`` command on the yeast network bundled with netmcl with
``--checkpoint``, kills it part-way (as a cluster's scheduler or a power cut
would), resumes it with ``--resume``, and shows that the clusters are byte
for byte those of an uninterrupted run.  Then it shows what a checkpoint
holds, and that one written for other parameters is refused.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import netmcl
from netmcl.checkpoint import CheckpointError, read_checkpoint
from netmcl.datasets import collins2007_path, load_collins2007

work = tempfile.mkdtemp(prefix="netmcl-tutorial-")
links = str(collins2007_path())
ckpt = os.path.join(work, "collins.ckpt")
# the commands below run the netmcl this script imports
env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(netmcl.__file__))))

# --- 1. An uninterrupted run, for comparison ---------------------------------
plain = os.path.join(work, "plain.txt")
subprocess.run([sys.executable, "-m", "netmcl", links, "--abc", "-o", plain, "-q", "x"], check=True, env=env)

# --- 2. The same run, with a checkpoint, killed part-way ---------------------
# --checkpoint saves the state after every iteration (atomically: a killed
# process leaves the previous state or the new one, never half a file);
# --checkpoint-every SECONDS saves less often on long runs.
resumed = os.path.join(work, "resumed.txt")
command = [sys.executable, "-m", "netmcl", links, "--abc", "-o", resumed, "-te", "1", "-q", "x",
           "--checkpoint", ckpt, "--resume"]
run = subprocess.Popen(command, env=env)
while run.poll() is None and not os.path.exists(ckpt):  # until the first state is saved
    time.sleep(0.005)
if run.poll() is None:
    run.send_signal(signal.SIGKILL)
    run.wait()
    print(f"killed: the checkpoint holds iteration {read_checkpoint(ckpt)['iteration']}, "
          f"clusters written: {os.path.exists(resumed)}")

# --- 3. Resume: --resume continues from the saved iteration ------------------
# (without a checkpoint file it starts from the beginning, so the same
# command can simply be run again until it finishes)
subprocess.run(command, check=True, env=env)
with open(plain, "rb") as a, open(resumed, "rb") as b:
    same = a.read() == b.read()
print("resumed clusters identical to the uninterrupted run:", same)
assert same

# --- 4. What a checkpoint is -------------------------------------------------
# Plain arrays and JSON (numpy .npz), never a pickle: loading one cannot run
# code.  It records a SHA-256 of the input graph and the parameters.
state = read_checkpoint(ckpt)
print(f"iteration {state['iteration']}, {state['matrix'].nnz} entries, inflation {state['parameters']['inflation']}, "
      f"input sha256 {state['input_sha256'][:16]}...")

# --- 5. The same from Python, and a mismatch refused --------------------------
G = load_collins2007()
first = netmcl.mcl(G, checkpoint=os.path.join(work, "api.ckpt"), attribute=None)
again = netmcl.mcl(G, checkpoint=os.path.join(work, "api.ckpt"), resume=True, attribute=None)
assert list(again) == list(first)
try:
    netmcl.mcl(G, inflation=1.4, checkpoint=os.path.join(work, "api.ckpt"), resume=True)
except CheckpointError as e:
    print("refused:", e)
else:
    raise AssertionError("a checkpoint of other parameters was accepted")

shutil.rmtree(work)
