"""Log in or register; the server address and the name are remembered (QSettings)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


class LoginWindow(QWidget):
    """Emits `submit(host, port, name, password, register)`."""

    submit = Signal(str, int, str, str, bool)

    def __init__(self, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("pokerroom — log in")
        self.host = QLineEdit(str(settings.value("server/host", "127.0.0.1")))
        self.port = QSpinBox()
        self.port.setRange(1, 65535)
        self.port.setValue(int(str(settings.value("server/port", 9999))))
        self.name = QLineEdit(str(settings.value("account/name", "")))
        self.name.setPlaceholderText("3–20 of a-z, 0-9, _")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("at least 8 characters")
        self.login_button = QPushButton("Log in")
        self.register_button = QPushButton("Register")
        self.login_button.setDefault(True)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Server", self.host)
        form.addRow("Port", self.port)
        form.addRow("Name", self.name)
        form.addRow("Password", self.password)
        buttons = QHBoxLayout()
        buttons.addWidget(self.register_button)
        buttons.addWidget(self.login_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.login_button.clicked.connect(lambda: self._submit(False))
        self.register_button.clicked.connect(lambda: self._submit(True))
        self.password.returnPressed.connect(lambda: self._submit(False))
        self.resize(380, 220)

    def _submit(self, register: bool) -> None:
        host, port, name = self.host.text().strip(), self.port.value(), self.name.text().strip()
        self.settings.setValue("server/host", host)
        self.settings.setValue("server/port", port)
        self.settings.setValue("account/name", name)
        self.settings.sync()
        self.set_busy(True)
        self.message.setText("connecting …")
        self.submit.emit(host, port, name, self.password.text(), register)

    def set_busy(self, busy: bool) -> None:
        """Buttons off while a login runs."""
        self.login_button.setEnabled(not busy)
        self.register_button.setEnabled(not busy)

    def failed(self, code: str, message: str) -> None:
        """Show why the login or registration was refused."""
        self.set_busy(False)
        self.message.setText(f"{code}: {message}")
