"""The control socket of watching (adi_probe/watch.py's _listen, which the live recorder and an
editor's run both use) is mode 0600 in a directory of mode 0700 whatever the process's umask."""

import os
import shutil
import socket
import stat
import tempfile
import unittest

from adi_probe import watch


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


class ControlSocketModeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="adi-sock-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.old_umask = os.umask(0)  # the worst case: everything created is open to all
        self.addCleanup(os.umask, self.old_umask)

    def listen(self, path):
        sock = watch._listen(path)
        self.addCleanup(sock.close)
        self.assertEqual(os.umask(0), 0, "the process's umask is left as it was")
        self.assertTrue(stat.S_ISSOCK(os.stat(path).st_mode))
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # the owner can connect
        c.connect(path)
        c.close()
        return sock

    def test_directory_made_for_it(self):
        d = os.path.join(self.tmp, "ctl")
        path = os.path.join(d, "c.sock")
        self.listen(path)
        self.assertEqual(oct(mode(path)), oct(0o600))
        self.assertEqual(oct(mode(d)), oct(0o700))

    def test_private_directory(self):
        d = os.path.join(self.tmp, "ctl")
        os.mkdir(d, 0o700)
        path = os.path.join(d, "w1.sock")
        self.listen(path)
        self.assertEqual(oct(mode(path)), oct(0o600))
        self.assertEqual(oct(mode(d)), oct(0o700))

    def test_shared_directory(self):
        # a directory others may enter: the socket is bound under a umask of 0o177, and the
        # directory, which the probe did not make, is left as it is
        d = os.path.join(self.tmp, "shared")
        os.mkdir(d, 0o755)
        path = os.path.join(d, "c.sock")
        self.listen(path)
        self.assertEqual(oct(mode(path)), oct(0o600))
        self.assertEqual(oct(mode(d)), oct(0o755))

    def test_socket_left_by_an_earlier_run(self):
        d = os.path.join(self.tmp, "ctl")
        path = os.path.join(d, "c.sock")
        self.listen(path).close()
        os.chmod(path, 0o777)
        self.listen(path)
        self.assertEqual(oct(mode(path)), oct(0o600))


if __name__ == "__main__":
    unittest.main()
