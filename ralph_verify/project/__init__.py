"""The project under the loop: git, snapshots of its tree, its layout and interpreters, the
caches kept outside it, what ``init`` detects and the files it scaffolds."""
