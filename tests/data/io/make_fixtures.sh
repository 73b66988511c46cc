#!/bin/sh
# Regenerate the expected outputs in this directory with the reference mcl 22-282
# (Debian package mcl 1:22-282+ds-2).  The inputs (edge.abc, random40.abc, domains.mci)
# were written for netmcl's tests; random40.abc comes from:
#   python3 -c "import random; r = random.Random(40); [print(f'n{r.randrange(40)}\tn{(i * 7 + r.randrange(5)) % 40}\t{r.choice([1, 0.5, 0.25, 2.5, 1e-3, 3.75])}') for i in range(120)]"
set -e
cd "$(dirname "$0")"
mcl edge.abc --abc -o edge.abc.I20 2>/dev/null
mcl edge.abc --abc -I 1.4 -o edge.abc.I14 2>/dev/null
mcl edge.abc --abc -I 3 -pi 1.5 -c 2 -o edge.abc.I30pi15c20 2>/dev/null
mcxload -abc random40.abc --stream-mirror -o random40.mci -write-tab random40.tab 2>/dev/null
mcl random40.mci -I 2 -o random40.mci.I20 2>/dev/null
mcl random40.mci -I 1.6 -use-tab random40.tab -o random40.mci.I16.labels 2>/dev/null
mcl domains.mci -I 2 -o domains.mci.I20 2>/dev/null
mcl stars.mci -I 2 -o stars.mci.I20 2>/dev/null
mcl random40.mci -I 1.4 -o random40.mci.I14 2>/dev/null
mcl random40.mci -icl random40.mci.I14 -I 3 -write-graph random40.mci.I14.icl -o random40.mci.I14.I30 2>/dev/null
