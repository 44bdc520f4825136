"""The class room: an instructor's room, students' anonymous seats, their guesses, the live panel.

- session.py: this session's seat and every call that reaches the store (the Streamlit side)
- views.py: what the room draws (the sidebar's class section, the join card, the instructor's panel)
- chart.py: the distribution of a class's guesses
- store.py: the rooms, seats and guesses in SQL (SQLite or PostgreSQL), nothing of Streamlit
- config.py: which database the store uses
"""
